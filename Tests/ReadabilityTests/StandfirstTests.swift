import HTMLDocument
import Testing
@testable import Readability

/// The standfirst (issue 46): the lead set between the headline and the text, whose words are the
/// page's description, opens the body when Readability's choice left it out (it sat in the
/// page's header block, an unlikely candidate). A description shown nowhere on the page, or only
/// as a link's text, adds nothing. Pages written for this test.
struct StandfirstTests {
    static let lead = "Tide gauges along the coast recorded the highest water in forty years, and the new gates held."

    static func html(description: String = lead, header: String) -> String {
        page(title: "The gates held", head: #"<meta name="description" content="\#(description)">"#,
             body: "<div class=\"page-header\"><h1>The gates held</h1>\(header)</div><article><div class=\"text\">\(fillerParagraphs(4))</div></article>")
    }

    @Test func theLeadInTheHeaderOpensTheBody() throws {
        let html = Self.html(header: "<p class=\"intro\">\(Self.lead)</p>")
        let faithful = try #require(try extract(html, options: .init(enhancedCleaning: false))).text
        #expect(!faithful.contains("Tide gauges"), "Readability drops the header: the rule is what keeps the lead")
        let text = try #require(try extract(html)).text
        #expect(text.hasPrefix(Self.lead))
        #expect(text.contains(filler[3]))
    }

    /// The lead's own text is used, link text and all, when the description is only its start.
    @Test func theBlockTextIsTakenWhole() throws {
        let shown = "\(Self.lead) Engineers <a href=\"/gates\">explain how</a> they work."
        let text = try #require(try extract(Self.html(header: "<div class=\"intro\">\(shown)</div>"))).text
        #expect(text.hasPrefix("\(Self.lead) Engineers explain how they work."))
    }

    @Test func aDescriptionNotOnThePageAddsNothing() throws {
        let text = try #require(try extract(Self.html(header: "<p class=\"intro\">A different line above the text.</p>"))).text
        #expect(!text.contains("Tide gauges"))
        #expect(text.hasPrefix(filler[0]))
    }

    @Test func aLinkToThePageWithItsDescriptionIsNoLead() throws {
        let text = try #require(try extract(Self.html(header: "<a href=\"/the-gates-held\">\(Self.lead)</a>"))).text
        #expect(!text.contains("Tide gauges"))
    }

    /// A short description is a tagline, never looked for.
    @Test func aShortDescriptionIsNoLead() throws {
        let tagline = "News from the coast, every day."
        let text = try #require(try extract(Self.html(description: tagline, header: "<p class=\"intro\">\(tagline)</p>"))).text
        #expect(!text.contains(tagline))
    }

    /// A page written decomposed: the body is stored composed, and the lead it holds is not
    /// taken for a missing one.
    @Test func aDecomposedLeadTheBodyHoldsIsNotRepeated() throws {
        let lead = "Cafe\u{301}s along the quay reopened on Monday after the water went down, and the owners counted the cost."
        let html = page(title: "Cafés reopen", head: #"<meta name="description" content="\#(lead)">"#,
                        body: "<article><p>\(lead)</p>\(fillerParagraphs(4))</article>")
        let text = try #require(try extract(html)).text
        #expect(text.ranges(of: "reopened on Monday").count == 1, "the lead once")
    }

    @Test func whitespaceIsCollapsed() {
        #expect(Extractor.collapsingWhitespace("  a \n\t b\u{A0}c  ") == "a b c")
        #expect(Extractor.standfirstKey("short") == nil)
        #expect(Extractor.standfirstKey(String(repeating: "word ", count: 20))?.unicodeScalars.count == Extractor.standfirstKeyLength)
    }

    /// The worst page of this shape: a container of 20,000 empty elements, then 5,000 texts that
    /// each open as the description. Every text's block is that container, which is read once, not
    /// once per text, and every node read is on the extraction's meter (its work and CPU budget).
    @Test func aContainerOfLookalikeTextsIsReadOnce() throws {
        let lookalikes = String(repeating: "<i></i>", count: 20_000) + String(repeating: "Tide<br>", count: 5_000)
        let html = Self.html(header: "<div class=\"intro\">\(lookalikes)</div>")
        let extractor = Extractor(document: try HTMLDocument.parse(html: html), url: "https://news.example.com/a", options: .init())
        _ = extractor.parse()
        #expect(!extractor.arena.meter.exhausted, "the page must leave the budget to the rule")
        let content = try #require(extractor.body)
        let nodes = extractor.document.nodes.count
        #expect(nodes > 30_000)
        let before = extractor.arena.meter.visits
        #expect(extractor.standfirst(missingFrom: "", before: content) == nil)
        let read = extractor.arena.meter.visits - before
        #expect(read > 0 && read <= 2 * nodes, "\(read) nodes read for a page of \(nodes)")
    }
}
