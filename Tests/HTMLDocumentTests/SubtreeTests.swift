import Testing
@testable import HTMLDocument

/// `HTMLDocument` keeps each node's subtree as an index range (`subtreeEnd`) instead of a child
/// list. The ranges must give what the parent links give: the same children in the same order,
/// and every descendant, for trees gumbo rebuilds (foster parenting, adoption agency, implied
/// elements, templates) and for trees cut at the depth limit.
@Suite struct SubtreeTests {
    static let pages = [
        "<p>one<p>two<div>three<span>four</span></div>",
        "<table><tr><td>a</td>stray text<td>b</td></tr></table><b>bold<p>para</b>after</p>",
        "<ul><li>one<li>two<ul><li>nested</ul></ul><!-- note --><template><i>t</i></template>",
        "<html><head><title>T</title><script>var x = '<p>';</script></head><body><a><div>x</a>y</div></body></html>",
        "text only", "",
        String(repeating: "<div>", count: 40) + "deep" + String(repeating: "</div>", count: 40),
    ]

    @Test(arguments: pages)
    func rangesAgreeWithParentLinks(html: String) throws {
        var limits = HTMLParseLimits()
        limits.maxDepth = 20  // the deep page is cut
        let document = try HTMLDocument.parse(html: html, limits: limits)
        let count = document.nodes.count
        for index in 0..<count {
            let id = HTMLDocument.NodeID(index: index)
            let children = (0..<count).filter { document.nodes[$0].parent?.index == index }
            #expect(document.children(of: id).map(\.index) == children, "children of \(index) in \(html)")
            var descendants: [Int] = []
            var pending = children
            while let next = pending.first {
                pending.removeFirst()
                descendants.append(next)
                pending += (0..<count).filter { document.nodes[$0].parent?.index == next }
            }
            #expect(document.descendants(of: id).map(\.index) == descendants.sorted(), "descendants of \(index) in \(html)")
        }
    }
}
