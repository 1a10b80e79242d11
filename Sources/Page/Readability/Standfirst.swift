import HTMLDocument
import TextSupport

/// The standfirst: the lead a news page sets between its headline and its text ("Damit
/// Mitarbeiter gesund bleiben, müssen sich Unternehmen einiges einfallen lassen ..."), often in
/// the article's `<header>` (which Readability drops as an unlikely candidate) or in a teaser block
/// of its own beside the body. It is the article's first paragraph to a reader, and publishers
/// give the same words as the page's description (`og:description`, `<meta name=description>`,
/// JSON-LD `description`). So when the description is set on the page as a block's text, before
/// the end of the body Readability chose, and the chosen text does not hold it, that block's text
/// opens the body. A description shown nowhere on the page (a summary for search engines) adds nothing, and
/// one shown after the body (an author box, a teaser for this page in a rail) neither.
/// Read on the immutable document's nodes: the working tree no longer holds the blocks the grab
/// removed. Written by hand: no library we keep knows a lead from its description.
extension Extractor {
    /// Shorter descriptions ("Nachrichten aus der Region") are taglines, not leads; the first
    /// this many scalars of a description, whitespace collapsed, are what is looked for.
    static let standfirstKeyLength = 60
    /// A block holding more text than this many times the description is a container of the
    /// lead and more, not the lead.
    static let standfirstBlockShare = 3
    /// Text in these elements is never a lead a reader sees.
    static let standfirstHiddenTags: Set<String> = ["script", "style", "noscript", "template", "textarea", "title"]
    /// Nor is a text node right inside one of these: a link (a teaser's headline and summary), a control.
    static let standfirstSkippedTags = standfirstHiddenTags.union(["a", "button", "option", "select"])
    /// Inline elements: a text node's block is its nearest ancestor not among them.
    static let standfirstInlineTags: Set<String> = ["span", "strong", "b", "em", "i", "u", "small", "font", "mark", "time", "abbr", "cite", "q", "sup", "sub"]

    /// The lead's text when it should open the body: the description is at least
    /// `standfirstKeyLength` scalars long, `text` (the chosen body's) does not hold its start, and
    /// a block of the page before the end of `content`'s text holds it.
    func standfirst(missingFrom text: String, before content: DNode) -> String? {
        guard let description = metadata.excerpt, let key = Self.standfirstKey(description),
              let firstWord = key.split(separator: " ").first else { return nil }
        // Its first four scalars: a CJK lead has no spaces, and its first "word" (the whole key)
        // may run across a link in the lead.
        let opening = String(String.UnicodeScalarView(firstWord.unicodeScalars.prefix(4)))
        // Where the body's text ends: its last text's element. A lead the cleaning removed from
        // the top of the body (with the header's date line kept) stands before it too.
        var lastContent: Int32 = -1
        content.forEachDescendant { node in
            if node.kind == .text, !node.hasNoText, let index = node.parent?.sourceIndex, index > lastContent { lastContent = index }
            return true
        }
        guard lastContent > 0 else { return nil }
        let nodes = document.nodes
        let limit = description.utf8.count * Self.standfirstBlockShare + 200
        // Blocks already found to hold more than a lead: a hostile page sets thousands of texts
        // opening as the description in one container, and each would read it again.
        var containers = Set<Int>()
        var index = 1
        while index < min(Int(lastContent), nodes.count) {
            // Every node read is counted on the extraction's meter, which holds its work and CPU.
            arena.meter.visits += 1
            guard !arena.meter.exhausted else { return nil }
            // A lead's first text opens as the description does: the only text nodes whose
            // block is read (most pages have hundreds of text nodes and one lead).
            guard nodes[index].kind == .text, TextScan.contains(nodes[index].text, opening),
                  let parent = nodes[index].parent?.index,
                  !Self.standfirstSkippedTags.contains(nodes[parent].tag) else { index += 1; continue }
            var block = parent
            while Self.standfirstInlineTags.contains(nodes[block].tag), let up = nodes[block].parent?.index, up > 0 { block = up }
            // A link's text (a teaser's headline and summary) is not the lead.
            if nodes[block].tag == "a" { index = nodes[block].subtreeEnd; continue }
            guard !containers.contains(block), let blockText = blockText(nodes, block, limit: limit) else {
                // A container of more than the lead: its own texts are read one by one.
                containers.insert(block)
                index += 1
                continue
            }
            if blockText.contains(key) {
                // Asked last: most pages show no lead, and the body's text is the longest read.
                return Self.collapsingWhitespace(text).contains(key) ? nil : blockText
            }
            // Every text node in this block was just read with it.
            index = max(index + 1, nodes[block].subtreeEnd)
        }
        return nil
    }

    /// The first `standfirstKeyLength` scalars of the description, whitespace collapsed; nil for
    /// a shorter one.
    static func standfirstKey(_ description: String) -> String? {
        let collapsed = collapsingWhitespace(description)
        guard collapsed.unicodeScalars.count >= standfirstKeyLength else { return nil }
        return Composition.composed(String(String.UnicodeScalarView(collapsed.unicodeScalars.prefix(standfirstKeyLength))))
    }

    /// The text of `block`'s subtree, whitespace collapsed; nil when over `limit` UTF-8 bytes, or
    /// over `limit` nodes (a lead has fewer elements than bytes), or when it holds none.
    private func blockText(_ nodes: [HTMLDocument.Node], _ block: Int, limit: Int) -> String? {
        var raw = ""
        var index = block + 1
        guard nodes[block].subtreeEnd - index <= limit else { return nil }
        arena.meter.visits += nodes[block].subtreeEnd - index
        while index < nodes[block].subtreeEnd {
            if nodes[index].kind == .element, Self.standfirstHiddenTags.contains(nodes[index].tag) {
                index = nodes[index].subtreeEnd
                continue
            }
            if nodes[index].kind == .text {
                raw += nodes[index].text
                guard raw.utf8.count <= limit else { return nil }
            }
            index += 1
        }
        // Composed as the body's text is (`Composition`), so a decomposed page compares alike.
        let text = Composition.composed(Self.collapsingWhitespace(raw))
        return text.isEmpty ? nil : text
    }

    /// Runs of whitespace (`TextScan.isWhitespace`) as one space, trimmed. On the bytes: appending
    /// scalar by scalar to a String's scalar view cost as much as the rest of the rule.
    static func collapsingWhitespace(_ text: String) -> String {
        TextScan.transform(text) { bytes, out in
            var pendingSpace = false
            TextScan.forEachScalar(bytes) { value, range in
                if let scalar = Unicode.Scalar(value), TextScan.isWhitespace(scalar) {
                    pendingSpace = !out.isEmpty
                    return
                }
                if pendingSpace { out.append(0x20) }
                pendingSpace = false
                TextScan.appendScalar(bytes, range, to: &out)
            }
        }
    }
}
