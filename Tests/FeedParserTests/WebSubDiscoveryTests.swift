import Testing
import FeedParser

/// WebSub discovery in the document: `<link rel="hub">` and `<link rel="self">` at feed level.
@Suite struct WebSubDiscoveryTests {
    @Test func atomFeedNamesHubAndSelf() throws {
        let doc = try parseString("""
            <feed xmlns="http://www.w3.org/2005/Atom"><title>t</title>
              <link rel="alternate" href="https://site.example/"/>
              <link rel="hub" href="https://hub.example/"/>
              <link rel="self" href="/feed.xml"/>
              <entry><title>a</title><link href="https://site.example/a"/><id>a</id></entry>
            </feed>
            """, baseURL: "https://site.example/feed.xml")
        #expect(doc.hub == "https://hub.example/")
        #expect(doc.selfURL == "https://site.example/feed.xml")
        #expect(doc.link == "https://site.example/")
    }

    @Test func rssWithAtomLinks() throws {
        let doc = try parseString("""
            <rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom"><channel><title>t</title>
              <link>https://site.example/</link>
              <atom:link rel="self" href="https://site.example/rss" type="application/rss+xml"/>
              <atom:link rel="hub" href="https://pubsubhubbub.appspot.com/"/>
              <item><title>a</title><link>https://site.example/a</link>
                <atom:link rel="hub" href="https://item-level.example/"/></item>
            </channel></rss>
            """)
        #expect(doc.hub == "https://pubsubhubbub.appspot.com/")
        #expect(doc.selfURL == "https://site.example/rss")
        #expect(doc.link == "https://site.example/")
    }

    @Test func noHubAndUnsafeHub() throws {
        let none = try parseString("<rss version=\"2.0\"><channel><title>t</title><link>https://s.example/</link></channel></rss>")
        #expect(none.hub == nil && none.selfURL == nil)
        let unsafe = try parseString("""
            <feed xmlns="http://www.w3.org/2005/Atom"><title>t</title><link rel="hub" href="javascript:alert(1)"/></feed>
            """)
        #expect(unsafe.hub == nil)
    }
}
