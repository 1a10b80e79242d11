import Testing
@testable import HTMLDocument

/// Gumbo runs on a per-parse arena (CGumboGuard): blocks up to 1 KiB come from chunks and free
/// lists, larger ones from malloc, and the whole parse is dropped at once. These pin what the
/// arena must keep: every byte of the tree, the budget on memory really taken, and a clean
/// state after a parse abandoned with blocks of both kinds live.
struct GumboArenaTests {
    /// Text and attribute values from 1 byte to well past the 1 KiB small-block limit, so gumbo's
    /// growing buffers move through every size class and into large blocks.
    static func mixedSizes() -> (html: String, texts: [String], titles: [String]) {
        var texts: [String] = []
        var titles: [String] = []
        var html = "<html><body>"
        for size in stride(from: 1, through: 3_000, by: 37) {
            let letter = Character(Unicode.Scalar(UInt8(97 + size % 26)))
            let text = String(repeating: letter, count: size)
            let title = String(repeating: "t", count: 3_001 - size)
            texts.append(text)
            titles.append(title)
            html += "<p title=\"\(title)\">\(text)</p>"
        }
        return (html + "</body></html>", texts, titles)
    }

    @Test func blocksOfEverySizeKeepTheirBytes() throws {
        let (html, texts, titles) = Self.mixedSizes()
        let document = try HTMLDocument.parse(html: html)
        let paragraphs = document.elements(named: "p")
        #expect(paragraphs.map { document.textContent(of: $0) } == texts)
        #expect(paragraphs.map { document.nodes[$0.index].attributes.first { $0.name == "title" }?.value } == titles)
    }

    /// The budget counts what the parse took from malloc (whole chunks), not the payloads gumbo
    /// asked for: a budget below the first 16 KiB chunk refuses even a tiny page.
    @Test func theBudgetCountsMemoryTakenNotPayloads() throws {
        let limits = HTMLParseLimits(maxParserMemory: 4_096)
        #expect(throws: HTMLDocumentError.parserMemoryExceeded(limitBytes: 4_096)) {
            try HTMLDocument.parse(html: "<p>ok</p>", limits: limits)
        }
        #expect(try HTMLDocument.parse(html: "<p>ok</p>", limits: HTMLParseLimits(maxParserMemory: 65_536)).elements(named: "p").count == 1)
    }

    @Test func aParseAbandonedWithLargeBlocksLiveLeavesTheNextOneWhole() throws {
        let (html, texts, _) = Self.mixedSizes()
        let limits = HTMLParseLimits(maxParserMemory: 200_000)
        #expect(throws: HTMLDocumentError.parserMemoryExceeded(limitBytes: 200_000)) {
            try HTMLDocument.parse(html: html, limits: limits)
        }
        for _ in 0..<3 {
            let document = try HTMLDocument.parse(html: html)
            #expect(document.elements(named: "p").map { document.textContent(of: $0) } == texts)
        }
    }
}
