import Foundation
import Testing
@testable import Readability

/// Site notices are never the body (issue 46): a post that opens with a sponsorship disclosure on a
/// page with a cookie bar keeps its article, and a page whose only text is a cookie notice has none.
/// The pages are written for this test (Fixtures/notices).
struct SiteNoticeTests {
    static let url = "https://flourdrawer.example/2025/11/oat-bars"

    static func fixture(_ name: String) throws -> String {
        try Fixtures.text("notices/\(name).html")
    }

    /// The post's container reads as unlikely ("sponsored-post"), so the first attempt finds only
    /// the cookie bar; the article must still be the body, disclosure and all, without the bar.
    @Test func aSponsoredPostWithACookieBarKeepsItsArticle() throws {
        let html = try Self.fixture("sponsored-post-with-cookie-bar")
        let expected = try Fixtures.text("notices/sponsored-post-with-cookie-bar.expected.txt")
        let text = try #require(try extract(html, url: Self.url)).text
        #expect(text.hasPrefix("This shop has been compensated by Hearthside Mills"), "the disclosure opens the body")
        #expect(text.contains("the best versions of this recipe have always come from readers"), "the last paragraph")
        #expect(!text.contains("uses cookies"), "the cookie bar is not the body, nor part of it")
        #expect(TokenF1.score(extracted: text, expected: expected).f1 >= 0.95)
    }

    /// Nothing on the page but navigation, an empty application root and a cookie notice: no body.
    @Test func aPageWhoseOnlyTextIsACookieNoticeHasNoBody() throws {
        let html = try Self.fixture("cookie-notice-only")
        #expect(try extract(html, url: Self.url) == nil)
        #expect(try extract(html, url: Self.url, options: .init(enhancedCleaning: false)) != nil,
                "the faithful port returns the notice: the rule is what removes it")
    }

    @Test(arguments: [
        "This website uses cookies to improve your experience. We'll assume you're ok with this, but you can opt-out if you wish. Accept Read More",
        "Wir verwenden Cookies, um Ihnen ein optimales Erlebnis zu bieten. Einstellungen. Alle akzeptieren.",
        "Ce site utilise des cookies. En poursuivant votre navigation, vous acceptez leur utilisation. Paramètres",
        "Używamy plików cookies. Korzystając ze strony wyrażasz zgodę na ich użycie. Akceptuję",
        "Sign up for our newsletter: the day's news in your inbox every morning. Subscribe",
        "Dieser Artikel ist nur für Abonnenten. Bereits Abonnent? Jetzt anmelden oder registrieren.",
        "Bitte registrieren Sie sich und halten Sie sich an unsere Netiquette. Haben Sie Probleme beim Kommentieren oder Registrieren?",
    ])
    func noticesReadAsNotices(_ text: String) {
        #expect(Extractor.isSiteNotice(text))
    }

    @Test(arguments: [
        filler.joined(separator: " "),
        "The regulator fined a national retailer on Tuesday for setting advertising cookies before shoppers had consented, the first such penalty under the new rules. The retailer said it would appeal the decision. Consumer groups welcomed it as overdue and said other companies would now have to check their own tools, which often load trackers as soon as a page opens and send what they learn to advertisers.",
        "Bake the cookies for twelve minutes, until the edges are golden, then leave them on the tray to firm up before you move them to a rack.",
    ])
    func articlesDoNot(_ text: String) {
        #expect(!Extractor.isSiteNotice(text))
    }
}
