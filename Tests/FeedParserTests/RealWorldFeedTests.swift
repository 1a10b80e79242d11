import Foundation
import Testing
import FeedParser

/// Classes 2-7 and 9 of issue 10, with fixtures written here. Each test prints the number of
/// checked facts that came out right (`issue10-count`), the before/after measure of the issue.
private func tally(_ cls: Int, _ checks: [(String, Bool)]) {
    let right = checks.filter(\.1).count
    print("issue10-count class=\(cls) right=\(right)/\(checks.count) wrong=\(checks.filter { !$0.1 }.map(\.0))")
    for (name, ok) in checks { #expect(ok, "\(name)") }
}

private func parsed(_ xml: String) -> FeedDocument? { try? parseString(xml) }

@Suite("Real-world feeds (issue 10)")
struct RealWorldFeedTests {
    // MARK: 2. A URL for every real item

    @Test func podcastEpisodesWithoutLinkKeepTheirEnclosure() {
        let doc = parsed("""
        <rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel><title>Daily</title>
        <item><title>Episode 845</title><guid isPermaLink="false">gid-845</guid>
          <enclosure url="https://traffic.example.com/ep845.mp3?x=1&amp;y=2" type="audio/mpeg" length="9"/>
          <itunes:duration>21:05</itunes:duration></item>
        <item><title>Video 12</title><guid isPermaLink="false">gid-v12</guid>
          <enclosure url="https://cdn.example.com/v12.mp4" type="video/mp4" length="9"/></item>
        <item><title>Permalink guid</title><guid>https://pod.example.com/ep/3</guid></item>
        <item><title>Nothing at all</title><guid isPermaLink="false">gid-none</guid></item>
        </channel></rss>
        """)
        let items = doc?.items ?? []
        let audio = items.first { $0.title == "Episode 845" }
        let video = items.first { $0.title == "Video 12" }
        tally(2, [
            ("audio kept", audio?.url == "https://traffic.example.com/ep845.mp3?x=1&y=2"),
            ("audio typed podcast", audio?.mediaType == "podcast" && audio?.mediaURL == audio?.url),
            ("audio duration", audio?.mediaDurationSeconds == 1265),
            ("video kept", video?.url == "https://cdn.example.com/v12.mp4" && video?.mediaType == "video"),
            ("permalink guid", items.contains { $0.url == "https://pod.example.com/ep/3" }),
            ("only the bare item dropped", doc?.droppedCount == 1 && doc?.dropped.first?.reason == "missing link"
                && doc?.dropped.first?.title == "Nothing at all"),
        ])
    }

    // MARK: 3. A title for every kept item

    @Test func missingTitlesComeFromTheDescription() {
        let long = String(repeating: "word ", count: 40) + "end"
        let doc = parsed("""
        <rss version="2.0"><channel><title>T</title>
        <item><link>https://t.example.com/1</link><description>&lt;p&gt;Council &lt;b&gt;votes&lt;/b&gt; to close the bridge. Repairs start in May.&lt;/p&gt;</description></item>
        <item><link>https://t.example.com/2</link><description>\(long)</description></item>
        <item><link>https://t.example.com/3</link><description>Short note without a stop</description></item>
        <item><link>https://t.example.com/4</link></item>
        </channel></rss>
        """)
        let items = doc?.items ?? []
        let second = items.first { $0.url.hasSuffix("/2") }?.title ?? ""
        tally(3, [
            ("first sentence", items.first?.title == "Council votes to close the bridge."),
            ("cut at a word, <= 140", !second.isEmpty && second.count <= 140 && second.hasPrefix("word word")
                && !second.hasSuffix(" ") && second.replacingOccurrences(of: "…", with: "").split(separator: " ").allSatisfy { $0 == "word" }),
            ("whole short text", items.first { $0.url.hasSuffix("/3") }?.title == "Short note without a stop"),
            ("nothing at all is dropped", items.count == 3 && doc?.dropped.first?.reason == "missing title"),
        ])
    }

    // MARK: 4. Namespaces spelled differently

    @Test func extensionNamespacesToleratedInCaseSlashAndScheme() {
        let doc = parsed("""
        <rss version="2.0" xmlns:itunes="http://www.itunes.com/DTDs/Podcast-1.0.dtd"
             xmlns:content="http://purl.org/rss/1.0/modules/content" xmlns:dc="https://purl.org/dc/elements/1.1"
             xmlns:media="https://search.yahoo.com/mrss/"><channel><title>N</title>
        <item><title>Ep</title><link>https://n.example.com/1</link>
          <itunes:duration>1:00:00</itunes:duration><itunes:author>Host Name</itunes:author>
          <content:encoded>&lt;p&gt;Full body&lt;/p&gt;</content:encoded><dc:date>2024-03-01T10:00:00Z</dc:date>
          <media:thumbnail url="https://n.example.com/t.jpg"/>
          <enclosure url="https://n.example.com/1.mp3" type="audio/mpeg"/></item>
        </channel></rss>
        """)
        let item = doc?.items.first
        tally(4, [
            ("itunes duration", item?.mediaDurationSeconds == 3600),
            ("itunes author", item?.author == "Host Name"),
            ("content:encoded", item?.content == "Full body"),
            ("dc:date", item?.publishedAt == utc(2024, 3, 1, 10)),
            ("media thumbnail", item?.thumbnailURL == "https://n.example.com/t.jpg"),
        ])
    }

    // MARK: 5. Tracking pixels and share icons are never images

    @Test func trackingPixelsAndShareIconsAreNotThumbnails() {
        func thumb(_ description: String, extra: String = "") -> String? {
            parsed("""
            <rss version="2.0" xmlns:media="http://search.yahoo.com/mrss/"><channel><title>P</title>
            <item><title>x</title><link>https://p.example.com/1</link>\(extra)<description>\(description)</description></item>
            </channel></rss>
            """)?.items.first?.thumbnailURL
        }
        let real = "&lt;img src=\"https://p.example.com/photo.jpg\"&gt;"
        tally(5, [
            ("feedburner pixel", thumb("&lt;img src=\"https://feeds.feedburner.com/~r/Site/~4/AbC\" height=\"1\" width=\"1\" alt=\"\"/&gt;" + real)
                == "https://p.example.com/photo.jpg"),
            ("declared 1x1", thumb("&lt;img src=\"https://p.example.com/spacer.gif\" width=\"1\" height=\"1\"&gt;") == nil),
            ("declared 2px high", thumb("&lt;img src=\"https://p.example.com/line.png\" height=\"2px\"&gt;" + real)
                == "https://p.example.com/photo.jpg"),
            ("medium beacon", thumb("&lt;img src=\"https://medium.com/_/stat?event=post.clientViewed&amp;referrerSource=full_rss&amp;postId=1\"&gt;") == nil),
            ("feedflare", thumb("&lt;a href=\"http://feeds.feedburner.com/~ff/Site?a=1\"&gt;&lt;img src=\"http://feeds.feedburner.com/~ff/Site?d=yIl2AUoC8zA\" border=\"0\"&gt;&lt;/a&gt;" + real)
                == "https://p.example.com/photo.jpg"),
            ("twitter share", thumb("&lt;a href=\"https://twitter.com/share\"&gt;&lt;img src=\"https://p.example.com/wp-content/plugins/share/twitter.png\"&gt;&lt;/a&gt;") == nil),
            ("facebook share", thumb("&lt;img src=\"https://p.example.com/images/facebook-share-button.png\"&gt;" + real)
                == "https://p.example.com/photo.jpg"),
            ("media:thumbnail pixel", thumb("text", extra: "<media:thumbnail url=\"https://p.example.com/px.gif\" width=\"1\" height=\"1\"/>") == nil),
            ("real image kept", thumb(real) == "https://p.example.com/photo.jpg"),
        ])
    }

    // MARK: 6. Documents a lenient reader reads

    @Test func documentsALenientReaderReads() {
        let entry = parsed("""
        <entry xmlns="http://www.w3.org/2005/Atom"><title>Alone</title><id>urn:x:1</id>
          <link href="https://e.example.com/alone"/><updated>2024-01-02T00:00:00Z</updated></entry>
        """)
        let atomDefault = parsed("""
        <rss version="2.0" xmlns="http://www.w3.org/2005/Atom"><channel><title>Mixed</title>
        <item><title>One</title><link>https://m.example.com/1</link></item></channel></rss>
        """)
        let rss090 = parsed("""
        <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://my.netscape.com/rdf/simple/0.9/">
        <channel><title>Old</title><link>https://o.example.com/</link><description>d</description></channel>
        <item><title>Ninety</title><link>https://o.example.com/90</link></item></rdf:RDF>
        """)
        let entities = parsed("""
        <rss version="2.0"><channel><title>Cr&ecirc;pes&nbsp;&amp;&nbsp;more</title>
        <item><title>Tr&egrave;s &acirc;pre &amp; doux</title><link>https://h.example.com/1?a=1&amp;b=2</link></item>
        <item><title>Second &amp; last</title><link>https://h.example.com/2</link></item></channel></rss>
        """)
        let xhtml = parsed("""
        <?xml version="1.0"?>
        <html xmlns="http://www.w3.org/1999/xhtml"><head><title>Page</title></head><body><div>
        <rss version="2.0" xmlns=""><channel><title>Embedded</title>
        <item><title>Inside</title><link>https://x.example.com/1</link></item></channel></rss>
        </div></body></html>
        """)
        tally(6, [
            ("lone entry", entry?.items.first?.url == "https://e.example.com/alone" && entry?.items.first?.title == "Alone"),
            ("rss with atom default namespace", atomDefault?.items.first?.url == "https://m.example.com/1" && atomDefault?.title == "Mixed"),
            ("rss 0.90", rss090?.format == .rss090 && rss090?.items.first?.url == "https://o.example.com/90"),
            ("html entities without DTD", entities?.items.first?.title == "Très âpre & doux"
                && entities?.title == "Crêpes & more"),
            ("entities elsewhere intact", entities?.items.first?.url == "https://h.example.com/1?a=1&b=2"
                && entities?.items.last?.title == "Second & last"),
            ("feed inside XHTML", xhtml?.items.first?.url == "https://x.example.com/1" && xhtml?.title == "Embedded"),
        ])
    }

    // MARK: 7. Smaller ones

    @Test func smallerCases() {
        let dcTitle = parsed("""
        <rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/"><channel><dc:title>Only DC</dc:title>
        <item><title>i</title><link>https://d.example.com/1</link></item></channel></rss>
        """)
        let body = Data("<p>Decoded body</p>".utf8).base64EncodedString()
        let base64 = parsed("""
        <feed version="0.3" xmlns="http://purl.org/atom/ns#"><title>Old atom</title>
        <entry><title mode="base64" type="text/plain">\(Data("Base64 title".utf8).base64EncodedString())</title>
          <link rel="alternate" type="text/html" href="https://a.example.com/1"/><id>x</id>
          <content type="text/html" mode="base64">\(body)</content></entry></feed>
        """)
        let hebrew = parsed("""
        <rss version="2.0"><channel><title>H</title>
        <item><title>\u{5E9}\u{5DC}\u{5D5}\u{5DD} 2024\u{200F}! \u{200E}x \u{61C}y \u{202E}evil\u{202C} \u{2066}iso\u{2069}</title><link>https://he.example.com/1</link></item>
        </channel></rss>
        """)
        let spaces = parsed("""
        <rss version="2.0"><channel><title>S</title>
        <item><title>path</title><link>https://s.example.com/a b</link></item>
        <item><title>query</title><link>https://s.example.com/a?q=a b</link></item>
        <item><title>relative</title><link>/r s</link></item>
        </channel></rss>
        """)
        tally(7, [
            ("dc:title", dcTitle?.title == "Only DC"),
            ("base64 title", base64?.items.first?.title == "Base64 title"),
            ("base64 content", base64?.items.first?.content == "Decoded body"),
            ("RLM, LRM, ALM kept; overrides and isolates stripped",
             hebrew?.items.first?.title == "\u{5E9}\u{5DC}\u{5D5}\u{5DD} 2024\u{200F}! \u{200E}x \u{61C}y evil iso"),
            ("space in path", spaces?.items.first { $0.title == "path" }?.url == "https://s.example.com/a%20b"),
            ("space in query", spaces?.items.first { $0.title == "query" }?.url == "https://s.example.com/a?q=a b"),
            ("space in a relative link", spaces?.items.first { $0.title == "relative" }?.url == "https://feeds.example.com/r%20s"),
        ])
    }

    // MARK: 9. The cap keeps the newest

    @Test func capKeepsNewestAndCountsTheRest() throws {
        let items = (1...6).map { n in
            "<item><title>n\(n)</title><link>https://c.example.com/\(n)</link><pubDate>Mon, 0\(7 - n) Jan 2024 10:00:00 GMT</pubDate></item>"
        }.joined()
        let doc = try parseString("<rss version=\"2.0\"><channel><title>C</title>\(items)</channel></rss>",
                                  options: FeedParserOptions(maxItems: 2))
        tally(9, [
            ("newest kept", doc.items.map(\.title) == ["n1", "n2"]),
            ("rest counted", doc.droppedCount == 4 && doc.droppedByCap == 4 && doc.dropped.allSatisfy { $0.reason == "over item cap" }),
        ])
    }
}
