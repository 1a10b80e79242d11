import Testing
@testable import HTMLDocument

/// `TagNames` answers what the name sets answer, for every listed name in any ASCII case and for
/// names that only look like them: the pre-scans' decisions hang on it.
struct TagNamesTests {
    static let sets: [(Set<String>, TagTraits)] = [
        (MarkupEstimate.flatTags, .flat), (MarkupEstimate.foreignLeaves, .foreignLeaf),
        (MarkupEstimate.formattingTags, .formatting), (MarkupEstimate.blockStarts, .blockStart),
        (MarkupEstimate.tableCells, .tableCell), (MarkupEstimate.documentTags, .document),
        (TagScanner.rawTextElements, .rawText), (InertText.plainForeignElements, .plainForeign),
    ]

    /// The traits the sets (and the names the pre-scans compare by hand) give `name`.
    static func expected(_ name: String) -> TagTraits {
        var traits = TagTraits()
        for (set, trait) in sets where set.contains(name) { traits.formUnion(trait) }
        switch name {
        case "svg": traits.insert(.svg)
        case "math": traits.formUnion([.math, .stopsInertText])
        case "script": traits.insert(.script)
        case "style": traits.insert(.style)
        case "select", "frameset": traits.insert(.stopsInertText)
        default: break
        }
        return traits
    }

    static func info(_ name: String) -> TagNameInfo { TagNames.info(Array(name.utf8)[...]) }

    @Test func everyListedNameHasItsSetsTraitsAndItsOwnSlot() {
        let names = Set(Self.sets.flatMap { $0.0 }).union(MarkupEstimate.commonContainers)
            .union(["svg", "math", "script", "style", "select", "frameset"])
        var slots = Set<Int>()
        for name in names {
            for spelling in [name, name.uppercased(), String(name.enumerated().map { $0 % 2 == 0 ? Character($1.uppercased()) : $1 })] {
                let info = Self.info(spelling)
                #expect(info.traits == Self.expected(name), "\(spelling)")
                #expect(info.slot != nil, "\(spelling)")
            }
            if let slot = Self.info(name).slot { slots.insert(slot) }
        }
        #expect(slots.count == names.count)
        #expect(slots.allSatisfy { $0 >= 0 && $0 < TagNames.slotCount })
    }

    @Test func lookAlikesAreUnknown() {
        let lookAlikes = [
            "", "dív", "scrip", "scripts", "script\u{0}", "\u{0}p", "p\u{0}", "a\u{0}\u{0}", "b ", "1", "sv",
            "animatetransforms", "animatetransform\u{0}", "x-script", "ſtyle", "\u{212A}eygen", "span\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}",
            "SCRİPT", String(repeating: "a", count: 17), String(repeating: "div", count: 100),
        ]
        for name in lookAlikes {
            let info = Self.info(name)
            #expect(info.traits == [], "\(name.debugDescription)")
            #expect(info.slot == nil, "\(name.debugDescription)")
        }
        // The longest listed name still fits.
        #expect(Self.info("animateTransform").traits == .foreignLeaf)
    }

    @Test func theScannerCarriesTheTraitsOfTheNameItRead() {
        let bytes = Array("<DiV class=a><ScRiPt>x</script><custom-el></P>".utf8)
        var scanner = TagScanner(bytes: bytes, end: bytes.count)
        var seen: [(String, TagTraits)] = []
        while let tag = scanner.nextTag() { seen.append((tag.name, tag.info.traits)) }
        // The script's text is skipped; its end tag is the next tag read.
        #expect(seen.map(\.0) == ["div", "script", "script", "custom-el", "p"])
        #expect(seen.map(\.1) == [.blockStart, [.rawText, .script], [.rawText, .script], [], [.flat, .blockStart]])
    }
}

extension TagNamesTests {
    /// The scanner takes a listed tag's name from `slotNames`: it must be the name the bytes
    /// spell, lower-cased as the scanner does it, in every case mix.
    @Test func scannedNamesAreTheBytesLowerCased() {
        for name in TagNames.slotNames {
            for spelling in [name, name.uppercased(), String(name.enumerated().map { $0.offset % 2 == 0 ? Character($0.element.uppercased()) : $0.element })] {
                var scanner = TagScanner(bytes: Array("<\(spelling) a=b>".utf8), end: spelling.utf8.count + 7)
                #expect(scanner.nextTag()?.name == name, "\(spelling)")
            }
        }
        var scanner = TagScanner(bytes: Array("<Custom-Element>".utf8), end: 16)
        #expect(scanner.nextTag()?.name == "custom-element")
    }
}

/// `TagSlot` is a one-to-one naming of the listed names, exact in case, and `none` for the rest.
struct TagSlotTests {
    @Test func everyListedNameHasItsOwnSlot() {
        var seen = Set<Int>()
        for name in TagNames.slotNames {
            let slot = TagSlot.of(name)
            #expect(slot != TagSlot.none && TagNames.slotNames[slot] == name, "\(name)")
            #expect(seen.insert(slot).inserted, "\(name)")
            #expect(TagSlot.of(name.uppercased()) == TagSlot.none, "\(name)")  // the tree's names are lower case
            #expect(TagSlot.of(name + "x") == TagSlot.none && TagSlot.of(" " + name) == TagSlot.none, "\(name)")
        }
        for name in ["", "my-widget", "animatetransformx", String(repeating: "d", count: 40), "p\u{0}", "dív"] {
            #expect(TagSlot.of(name) == TagSlot.none, "\(name.debugDescription)")
        }
        for name in ["p", "div", "li", "img", "script", "noscript", "figure", "h2", "table", "a"] {
            #expect(TagSlot.of(name) != TagSlot.none, "\(name) is listed: the walks compare it as an integer")
        }
    }
}

extension TagSlotTests {
    /// A parsed element's slot, taken from gumbo's tag number, is the slot of its name: known and
    /// unknown tags, foreign (SVG) elements, and mixed case in the markup.
    @Test func parsedElementsCarryTheSlotOfTheirName() throws {
        let html = """
            <DIV><P>a<Img src=x><my-widget>b</my-widget><svg><path d=""/><foreignObject>c</foreignObject></svg>
            <table><tr><TD>d</td></tr></table><o:p>e</o:p><font>f</font><noscript><img></noscript></DIV>
            """
        let document = try HTMLDocument.parse(html: html)
        var elements = 0
        for node in document.nodes where node.kind == .element {
            #expect(node.tagSlot == TagSlot.of(node.tag), "\(node.tag)")
            elements += 1
        }
        #expect(elements > 12)
        for node in document.nodes where node.kind != .element { #expect(node.tagSlot == TagSlot.none) }
    }
}
