import Foundation
import HTMLDocument
import Testing
@testable import Readability

/// The element walks compare tag slots (integers) when every name asked for has one: they must
/// find exactly what comparing the names finds, on real pages, for listed and unlisted names, and
/// after elements are renamed.
@Suite struct ElementWalkTests {
    static let names = [
        "p", "div", "img", "li", "h2", "span", "figure", "noscript", "script", "a", "section", "my-widget", "o:p", "",
    ]

    static func byName(_ root: DNode, _ tags: [String]) -> [ObjectIdentifier] {
        var found: [ObjectIdentifier] = []
        root.forEachDescendant { node in
            if node.kind == .element, tags.contains(node.tag) { found.append(ObjectIdentifier(node)) }
            return true
        }
        return found
    }

    static func pages() throws -> [String] {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/pages")
        return try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".html") }.sorted()
            .map { try String(contentsOf: folder.appendingPathComponent($0), encoding: .utf8) }
    }

    @Test func slotWalksFindWhatNameWalksFind() throws {
        let pages = try Self.pages() + ["<div><my-widget><p>a</p></my-widget><o:p>b</o:p><font>c</font></div>"]
        #expect(pages.count > 10)
        for html in pages {
            let arena = DOMArena()  // owns the nodes: kept alive to the end of the checks
            defer { withExtendedLifetime(arena) {} }
            let root = arena.build(from: try HTMLDocument.parse(html: html))
            // Renamed as Readability renames them: the slot follows the name.
            for font in root.elements("font") { font.tag = "span" }
            for heading in root.elements("h1") { heading.tag = "h2" }
            for name in Self.names {
                #expect(root.elements(name).map(ObjectIdentifier.init) == Self.byName(root, [name]), "\(name)")
                #expect(root.countElements(name) == Self.byName(root, [name]).count, "\(name)")
                #expect(root.firstElement(name).map(ObjectIdentifier.init) == Self.byName(root, [name]).first, "\(name)")
            }
            for tags in [["p", "li", "div"], ["h2", "my-widget"], ["script", "noscript"], ["o:p"], []] {
                #expect(root.elements(tags).map(ObjectIdentifier.init) == Self.byName(root, tags), "\(tags)")
            }
            #expect(root.elements("font").isEmpty && root.elements("h1").isEmpty)
        }
    }

    /// `TagSet` answers as the name lists it replaced, for every node of every page (text nodes,
    /// unlisted names, renamed elements), with the lists the extractor uses and some without slots.
    @Test func tagSetsAnswerAsTheirNameLists() throws {
        let sets = [
            Extractor.phrasingElements, Extractor.divToPElements, Extractor.headingTags, Extractor.textishTags, Extractor.tagsToScore,
            Extractor.emptyRemovable, Extractor.alterToDivExceptions, Extractor.alwaysRemovedTags, Extractor.teaserListTags,
            ArticleSerializer.droppedTags, TagSet(["my-widget", "p", "o:p"]), TagSet([]), TagSet(["", "annotation-xml"]),
        ]
        for html in try Self.pages() + ["<div><my-widget><p>a</p></my-widget><o:p>b</o:p><font>c</font><annotation-xml/></div>"] {
            let arena = DOMArena()  // owns the nodes: kept alive to the end of the checks
            defer { withExtendedLifetime(arena) {} }
            let root = arena.build(from: try HTMLDocument.parse(html: html))
            for font in root.elements("font") { font.tag = "p" }
            var nodes = [root]
            root.forEachDescendant { nodes.append($0); return true }
            for node in nodes {
                for set in sets {
                    let expected = node.kind == .element && set.names.contains(node.tag)
                    #expect(set.contains(node) == expected, "\(node.tag) in \(set.names)")
                }
            }
        }
    }
}
