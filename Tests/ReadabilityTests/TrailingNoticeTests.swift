import Testing
@testable import Readability

/// Short lines after the text that together read as a paywall, login or newsletter notice go;
/// the article's own last paragraph, and an article that ends on a short line, stay.
struct TrailingNoticeTests {
    static let paywall = [
        "To view the full story, please subscribe to The Harbour Times.",
        "First-time subscribers also receive a welcome gift.",
        "If you are seeing this message but you are already a subscriber, you can log in for full access.",
    ]

    static func text(_ tail: [String]) throws -> String {
        try #require(try extract(page(body: "<article>\(fillerParagraphs(4))\(paragraphs(tail))</article>"))).text
    }

    @Test func aPaywallNoticeAfterTheTextGoes() throws {
        let text = try Self.text(Self.paywall)
        #expect(text.contains(filler[3]), "the article's last paragraph stays")
        for line in Self.paywall { #expect(!text.contains(line), "\(line)") }
    }

    @Test func aLoginLineForCommentsGoes() throws {
        let text = try Self.text(["Comments", "You must log in or register to join the discussion."])
        #expect(text.contains(filler[3]) && !text.contains("log in or register"))
    }

    @Test func anArticleEndingOnShortLinesKeepsThem() throws {
        let ending = ["The council will vote on the plan in March.", "Reporting by Jane Doe; editing by John Roe."]
        let text = try Self.text(ending)
        for line in ending { #expect(text.contains(line), "\(line)") }
    }

    /// A last paragraph that mentions subscribers in passing is the article's: it says too much
    /// else to read as a notice.
    @Test func aLastParagraphMentioningSubscribersStays() throws {
        let last = "The paper said subscribers would get the new weekend edition from Monday, and that printing costs had risen by a fifth since last year."
        let text = try Self.text([last])
        #expect(text.contains(last))
    }
}
