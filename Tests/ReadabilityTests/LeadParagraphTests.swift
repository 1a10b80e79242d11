import Testing
@testable import Readability

/// A standfirst set in wrappers of its own beside the article's body (`<div class="intro"><div
/// class="lead"><p>...</p></div></div>`) is joined to the body as a sibling `<p>` would be; a
/// wrapped short link line beside it is not.
struct LeadParagraphTests {
    static let lead = "Ferry operators and the harbour trust have agreed a timetable for repairs to the north quay that has been closed to cars since the storm in January."
    static let more = "<div class=\"more\"><div><p><a href=\"/news/other\">Read the other quay stories from this week</a></p></div></div>"

    static func html(lead: String) -> String {
        page(body: "<div class=\"story\"><div class=\"intro\"><div class=\"lead\"><p>\(lead)</p></div></div>\(more)<div class=\"body\">\(fillerParagraphs(4))</div></div>")
    }

    @Test func aWrappedLeadParagraphIsKept() throws {
        let text = try #require(try extract(Self.html(lead: Self.lead))).text
        #expect(text.contains(Self.lead) && text.contains(filler[3]))
        #expect(!text.contains("Read the other quay stories"), "a wrapped link line is no paragraph")
    }

    @Test func theFaithfulPortLeavesItOut() throws {
        let text = try #require(try extract(Self.html(lead: Self.lead), options: .init(enhancedCleaning: false))).text
        #expect(!text.contains(Self.lead))
    }
}
