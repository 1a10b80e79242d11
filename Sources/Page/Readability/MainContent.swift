import TextSupport

/// The page's own word for where its content is: the `<main>` element, `role="main"`, or
/// microdata `itemprop="articleBody"`. Readability.js's unlikely-candidate rule reads class names
/// and ids only, and a layout wrapper named for something else ("skyscraper-height-div" around an
/// ad column's height, a "commentary" section of a newspaper) then went with the whole article
/// inside it: the strict attempt kept a footer, and the retry that found the article was judged
/// astray for sitting in that removed block; a wrapper with the article as its only child became
/// the top candidate and `_cleanConditionally` removed it for its negative class weight. A
/// wrapper of the marked content is never unlikely nor removed for its name; the furniture
/// inside it is still judged block by block.
extension Extractor {
    /// Whether `node` is, or holds, an element that marks the page's main content.
    func holdsMainContent(_ node: DNode) -> Bool {
        if mainContentHolders == nil { mainContentHolders = findMainContentHolders() }
        return node.sourceIndex >= 0 && mainContentHolders?.contains(node.sourceIndex) == true
    }

    /// The markers and their ancestors (by `sourceIndex`, the same in every tree built from the
    /// document), from the working tree as the first attempt found it: one walk per page.
    private func findMainContentHolders() -> Set<Int32> {
        var holders = Set<Int32>()
        guard let start = documentElement else { return holders }
        var markers: [DNode] = []
        start.forEachDescendant { node in
            if node.isElement, Self.marksMainContent(node) { markers.append(node) }
            return true
        }
        for marker in markers {
            var node: DNode? = marker
            while let current = node, current.isElement, holders.insert(current.sourceIndex).inserted {
                node = current.parent
            }
        }
        holders.remove(-1)
        return holders
    }

    static func marksMainContent(_ node: DNode) -> Bool {
        node.tag == "main" || node.attribute("role") == "main" || marksArticleBody(node)
    }

    /// Microdata `itemprop="articleBody"`, in any case and among other properties.
    static func marksArticleBody(_ node: DNode) -> Bool {
        guard let itemprop = node.attribute("itemprop") else { return false }
        return TextScan.contains(itemprop.lowercased(), "articlebody")
    }
}
