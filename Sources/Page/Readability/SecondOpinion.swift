import TextSupport

/// A second opinion when Readability's winner looks wrong. The publisher's markup often says
/// where the article is: microdata `itemprop="articleBody"`, or an `<article>` element. Readability
/// scores blocks by their class names and text, and on some pages its winner is another block
/// altogether: a consent manager's list of services, the footer's address, an opening-hours box,
/// while the marked article, with several times its words, was outscored or removed by a rule
/// judging class names. Then the marked block is the body.
///
/// "Another block altogether" is judged by shared words, both ways (`isDifferentArticle`, as for
/// JSON-LD `articleBody`): a winner inside the marked block, or holding it, or the marked block's
/// teaser, shares most of its words and is kept. And the marked block must outweigh the winner
/// (`markedBodyLead` times its counted words): an `<article>` is also what a teaser card, a
/// comment or a sidebar box is set in. Written by hand: trafilatura's comparison with a fallback
/// extractor is the principle, not a library we keep.
extension Extractor {
    /// The marked block replaces a winner only when it holds this many times its counted words.
    static let markedBodyLead = 2

    /// The element the publisher marked as the body in the first tree, before the grab moved or
    /// removed anything: the first `itemprop="articleBody"`, else the `<article>` with the most
    /// paragraph text. Its `sourceIndex` finds it again in a fresh tree (`markedArticleBody`).
    func findMarkedBody() -> DNode? {
        guard let body else { return nil }
        var marked: DNode?
        var longest: (node: DNode, length: Int)?
        body.forEachDescendant { node in
            guard node.kind == .element else { return true }
            if Self.marksArticleBody(node) {
                marked = node
                return false
            }
            if node.tag == "article" {
                let length = paragraphTextLength(node)
                if length > (longest?.length ?? 0) { longest = (node, length) }
            }
            return true
        }
        return marked ?? longest?.node
    }

    /// The marked body, cleaned as a grab's content is, when the text Readability chose (`text`)
    /// is another, much shorter block; nil when it is not, or when the page marks none. `marked`
    /// is the node `findMarkedBody` found; the grab may have changed it since, and what is left of
    /// it is what is compared (a winner that took it in holds its words).
    func secondOpinion(over text: String, content: DNode, marked: DNode) -> DNode? {
        // Most winners sit in the marked block, or hold it: told by where their text comes from
        // in the document (each block's subtree is a range of its nodes), before any word is
        // counted (counting both texts was most of this rule's cost).
        let nodes = document.nodes
        let start = Int(marked.sourceIndex)
        guard start > 0, start < nodes.count else { return nil }
        let markedRange = start..<nodes[start].subtreeEnd
        var first = Int.max, last = -1
        content.forEachDescendant { node in
            if node.kind == .text, !node.hasNoText, let index = node.parent.map({ Int($0.sourceIndex) }), index >= 0 {
                first = min(first, index)
                last = max(last, index)
            }
            return true
        }
        guard last >= 0, !markedRange.contains(first), !(first...last).contains(start) else { return nil }
        let markedWords = Self.wordCounts(marked.innerText)
        let markedTotal = markedWords.values.reduce(0, +)
        guard markedTotal >= Self.structuredBodyMinimumWords else { return nil }
        let chosenTotal = Self.wordCounts(text).values.reduce(0, +)
        guard markedTotal >= chosenTotal * Self.markedBodyLead, Self.isDifferentArticle(markedWords, from: text),
              let again = markedArticleBody(element: marked.sourceIndex) else { return nil }
        let againText = again.innerText
        guard !Self.isSiteNotice(againText),
              Self.wordCounts(againText).values.reduce(0, +) >= chosenTotal * Self.markedBodyLead else { return nil }
        return again
    }
}
