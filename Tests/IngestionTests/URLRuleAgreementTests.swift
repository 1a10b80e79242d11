import ArticleStore
import Foundation
import FeedParser
import HTMLDocument
import OpenGraph
import Testing

/// Feed links (`--dump-feed` and ingest), page metadata (og:image, canonical link) and the store
/// ask the same URL rule: none of them keeps what another drops, and they keep the same text.
struct URLRuleAgreementTests {
    static let long = "https://example.com/" + String(repeating: "a", count: 3000)
    /// (URL, what each call site keeps; nil: refused). No C0/C1 controls here: the HTML parser
    /// replaces them before a page's URL is read (StoredURLTests has them).
    static let table: [(String, String?)] = [
        ("http://[0:0:0:0:0:0:0:1]/", nil),
        ("http://[::ffff:127.0.0.1]/", nil),
        ("http://0x7f.1/", nil),
        ("http://127.1/", nil),
        ("http://2130706433/", nil),
        ("http://127.0.0.1/", nil),
        ("http://8.8.8.8./", nil),
        ("http://10.0.0.1/", nil),
        ("http://a@b.com/", nil),
        ("http://localhost./", nil),
        ("http://news.LOCALHOST/", nil),
        ("http://ex.com:99999/", nil),
        ("http://ex.com:0/", nil),
        ("https://example.com/\u{202E}gpj.exe", nil),
        ("https://example.com/a\u{A0}b", nil),
        ("http://127.0.0.1../", nil),
        ("http://[fe80::1%25eth0]/", nil),
        ("https://example.com/%zz", nil),
        ("https://ex<am>ple.com/", nil),
        ("ftp://example.com/a", nil),
        (long, nil),
        ("http://ex.com/a b", "http://ex.com/a%20b"),
        ("https://example.com/a?b=c&d=e#f", "https://example.com/a?b=c&d=e#f"),
        ("http://8.8.8.8/", "http://8.8.8.8/"),
        ("http://[2606:4700::1111]/", "http://[2606:4700::1111]/"),
        ("https://localhost.example/x", "https://localhost.example/x"),
        ("https://example.com:8443/x", "https://example.com:8443/x"),
    ]

    static func xmlEscaped(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    /// The feed parser: the item's link, or nil when the item was dropped for it.
    static func feed(_ url: String) throws -> String? {
        let xml = "<rss version=\"2.0\"><channel><title>t</title><item><title>Story</title><link>\(xmlEscaped(url))</link>"
            + "</item></channel></rss>"
        return try FeedParser.parse(Array(xml.utf8), baseURL: "https://feeds.example.com/feed.xml").items.first?.url
    }

    /// The page: og:image (resolved against the page) and the canonical link (taken as it is).
    static func page(_ url: String) throws -> (image: String?, canonical: String?) {
        let html = "<html><head><link rel=\"canonical\" href=\"\(xmlEscaped(url))\">"
            + "<meta property=\"og:image\" content=\"\(xmlEscaped(url))\"></head><body></body></html>"
        let document = try HTMLDocument.parse(html: html)
        return (OpenGraph.imageURL(in: document, pageURL: "https://page.example/article"),
                OpenGraph.declaredURL(in: document))
    }

    @Test(arguments: table)
    func feedPageAndStoreAgree(_ url: String, _ expected: String?) throws {
        let page = try Self.page(url)
        #expect(try Self.feed(url) == expected, "feed")
        #expect(page.image == expected, "og:image")
        #expect(page.canonical == expected, "canonical link")
        #expect(ArticleRowBuilder.storedURL(url) == expected, "store")
    }
}
