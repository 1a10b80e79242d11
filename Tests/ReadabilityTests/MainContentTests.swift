import Testing
@testable import Readability

/// A layout wrapper whose class or id reads as unlikely ("skyscraper", "commentary") around the
/// page's marked main content (`<main>`, `role="main"`, `itemprop="articleBody"`) is not removed
/// with the article inside it; unlikely blocks inside the marked content still go.
struct MainContentTests {
    static let story = (0..<6).map { index in
        "Section \(index) of the inquiry describes how the river authority inspected weir number \(index), which repairs it ordered, and when the towpath will reopen to walkers."
    }
    static let footer = "<footer><p>Riverside Gazette, 4 Mill Lane, Kendal. Telephone 01539 000000. Office hours nine to five, Monday to Friday, closed on public holidays.</p></footer>"

    static func page(marker: String) -> String {
        let sidebar = "<div class=\"sidebar\"><p>Most read this week: the best tea rooms along the canal, a guide to every lock between here and Lancaster, and where to park.</p></div>"
        return """
            <html><head><title>Weirs inspected</title></head><body>
            <div id="skyscraper-height-div"><div \(marker)>\(sidebar)\(paragraphs(Self.story))</div></div>\(Self.footer)</body></html>
            """
    }

    @Test(arguments: ["role=\"main\"", "itemprop=\"articleBody\""])
    func theMarkedContentIsKeptInsideAnUnlikelyWrapper(marker: String) throws {
        let text = try #require(try extract(Self.page(marker: marker))).text
        for index in 0..<6 { #expect(text.contains("weir number \(index)"), "section \(index)") }
        #expect(text.hasPrefix("Section 0 of the inquiry"), "the article is the body, not the footer")
        #expect(!text.contains("tea rooms"), "an unlikely block inside the marked content still goes")
    }

    @Test func aMainElementMarksItToo() throws {
        let html = Self.page(marker: "class=\"x\"").replacingOccurrences(of: "<div class=\"x\">", with: "<main>")
            .replacingOccurrences(of: "</div></div>\(Self.footer)", with: "</main></div>\(Self.footer)")
        let text = try #require(try extract(html)).text
        #expect(text.hasPrefix("Section 0 of the inquiry") && text.contains("weir number 5"))
    }

    /// A newspaper's "commentary" section holding the marked article, above a reader thread four
    /// times its length: the section is not page furniture for its name (before, it went as a
    /// "comment" block holding under a quarter of the page's text, and nothing was left).
    @Test func aCommentarySectionAboveALongThreadIsTheBody() throws {
        let letters = (0..<12).map { index in
            "Reader \(index) writes that the towpath closure has gone on far too long, that the detour along the main road is dangerous for children, and that the authority should have warned walkers sooner."
        }
        let html = """
            <html><head><title>Weirs inspected</title></head><body>
            <div class="commentary"><article itemprop="articleBody">\(paragraphs(Self.story.prefix(3)))</article></div>
            <div class="comments">\(paragraphs(letters))</div>\(Self.footer)</body></html>
            """
        let text = try #require(try extract(html)).text
        #expect(text.hasPrefix("Section 0 of the inquiry") && text.contains("weir number 2"))
        #expect(!text.contains("Reader 5 writes"))
    }
}
