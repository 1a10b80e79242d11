import Testing
@testable import Readability

/// `<noscript><div id="x"></noscript>` at the top of the body: gumbo, parsing as a browser without
/// scripts, leaves the div open and the rest of the page inside the noscript. That noscript holds
/// the page and is unwrapped; a noscript of its own (a tracking pixel's fallback line) still goes.
struct NoscriptTests {
    @Test func aNoscriptThatSwallowedThePageIsUnwrapped() throws {
        let body = "<noscript><div id=\"nojs\"></noscript><div id=\"page\"><h1>Weirs inspected</h1><div class=\"text\">\(fillerParagraphs(4))</div></div>"
        let text = try #require(try extract(page(body: body))).text
        #expect(text.contains(filler[0]) && text.contains(filler[3]))
    }

    @Test func anOrdinaryNoscriptStillGoes() throws {
        let body = "<noscript><p>Please enable JavaScript in your browser to see the interactive map of the quays.</p></noscript><div class=\"text\">\(fillerParagraphs(4))</div>"
        let text = try #require(try extract(page(body: body))).text
        #expect(text.contains(filler[3]) && !text.contains("enable JavaScript"))
    }
}
