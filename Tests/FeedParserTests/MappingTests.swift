import Foundation
import Testing
import FeedParser

@Suite("Mapping")
struct MappingTests {
    static func feed(items: [(String, String?)]) -> String {
        var xml = "<rss version=\"2.0\"><channel><title>cap</title>"
        for (i, item) in items.enumerated() {
            xml += "<item><title>\(item.0)</title><link>https://cap.example/\(i)</link>"
            if let d = item.1 { xml += "<pubDate>\(d)</pubDate>" }
            xml += "</item>"
        }
        return xml + "</channel></rss>"
    }

    @Test func itemCapKeepsNewestInDocumentOrder() throws {
        let items: [(String, String?)] = [
            ("old", "Mon, 01 Jan 2001 00:00:00 GMT"), ("newest", "Mon, 01 Jan 2024 00:00:00 GMT"),
            ("undated", nil), ("middle", "Mon, 01 Jan 2010 00:00:00 GMT"), ("newer", "Mon, 01 Jan 2020 00:00:00 GMT"),
        ]
        let doc = try parseString(Self.feed(items: items), options: FeedParserOptions(maxItems: 3))
        #expect(doc.items.map(\.title) == ["newest", "middle", "newer"])
        #expect(Set(doc.dropped.map(\.title)) == ["old", "undated"])
        #expect(doc.dropped.allSatisfy { $0.reason == "over item cap" })
        #expect(doc.droppedCount == 2)
    }

    @Test func defaultCapIs500() throws {
        let items = (0..<620).map { i in ("t\(i)", "Mon, 01 Jan 2024 00:\(String(format: "%02d", i / 60 % 60)):\(String(format: "%02d", i % 60)) GMT") }
        let doc = try parseString(Self.feed(items: items))
        #expect(doc.items.count == 500)
        #expect(doc.items.first?.title == "t120")
        #expect(doc.droppedCount == 120)
    }

    @Test func fieldCaps() throws {
        let longTitle = String(repeating: "word ", count: 200)
        let longSummary = String(repeating: "This is a sentence. ", count: 400)
        let longContent = String(repeating: "<p>paragraph text here</p>", count: 400)
        let author = String(repeating: "a", count: 300)
        let xml = """
        <rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/"><channel><title>c</title>
        <item><title>\(longTitle)</title><link>https://caps.example/a</link><author>\(author)</author>
        <description>\(longSummary)</description><content:encoded><![CDATA[\(longContent)]]></content:encoded></item>
        </channel></rss>
        """
        let doc = try parseString(xml, options: FeedParserOptions(maxContentLength: 1000))
        let e = try #require(doc.items.first)
        #expect(e.title.unicodeScalars.count <= 500)
        #expect(e.title.hasSuffix("…"))
        #expect(e.summary!.unicodeScalars.count <= 4096)
        #expect(e.summary!.hasSuffix("sentence."))
        #expect(e.content!.unicodeScalars.count <= 1000)
        #expect(e.content!.hasSuffix("paragraph text here"))
        #expect(e.author!.unicodeScalars.count <= 200)
    }

    @Test func sanitiserRemovesControlsAndBidi() {
        #expect(TextSanitizer.inline("  a\u{7}b\u{202E}c\u{2066}d\u{FEFF}e\u{200F}  \n\t f\u{85}g ") == "abcde\u{200F} fg")
        #expect(TextSanitizer.block("p1 line\n\n\n\np2\u{A0}\u{A0}x") == "p1 line\n\np2 x")
        #expect(TextSanitizer.truncate("First sentence here. Second one goes on", cap: 30) == "First sentence here.")
        #expect(TextSanitizer.truncate("abcdefghijklmnop", cap: 5) == "abcd…")
    }

    @Test func htmlText() {
        let e = HTMLText.extract("<div><p>Hello &amp; <b>world</b></p><script>var x=1;</script><style>p{}</style><ul><li>one</li><li>two</li></ul><img src=\"/a.png\"><img src=\"/b.png\"></div>")
        #expect(e.text == "Hello & world\n\none\ntwo")
        #expect(e.firstImageSource == "/a.png")
        #expect(HTMLText.extract("plain &eacute;t&eacute; text").text == "plain été text")
        #expect(HTMLText.extract("no markup\nat all").text == "no markup\nat all")
        #expect(HTMLText.extract("<pre>a\n  b</pre>").text == "a\nb")
    }

    @Test func dataOverloadAndNoBaseURL() throws {
        let xml = "<rss version=\"2.0\"><channel><title>d</title><item><title>rel</title><link>/x</link></item></channel></rss>"
        let doc = try FeedParser.parse(Data(xml.utf8), contentType: "application/rss+xml", baseURL: nil)
        #expect(doc.items.isEmpty)
        #expect(doc.dropped.first?.reason == "missing link")
    }
}

@Suite("Concurrency")
struct ConcurrencyTests {
    @Test func parallelParsesAgree() async throws {
        let bytes = Fixture.bytes("rss20.xml")
        let expected = try FeedParser.parse(bytes, contentType: nil, baseURL: "https://feeds.example.com/feed.xml")
        let results = await withTaskGroup(of: FeedDocument?.self) { group in
            for _ in 0..<8 {
                group.addTask { try? FeedParser.parse(bytes, contentType: nil, baseURL: "https://feeds.example.com/feed.xml") }
            }
            var all: [FeedDocument?] = []
            for await r in group { all.append(r) }
            return all
        }
        #expect(results.count == 8)
        #expect(results.allSatisfy { $0 == expected })
    }
}
