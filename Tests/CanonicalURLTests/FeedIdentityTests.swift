import CanonicalURL
import Testing

/// The key two spellings of one feed share (duplicates in feeds.yaml and in imports).
@Suite struct FeedIdentityTests {
    @Test(arguments: [
        ("https://EXAMPLE.com/rss", "https://example.com/rss"),
        ("https://example.com:443/rss", "https://example.com/rss"),
        ("https://example.com:/rss", "https://example.com/rss"),
        ("https://example.com/rss#frag", "https://example.com/rss"),
        ("HTTP://Example.com:80/a?b=2&a=1#x", "http://example.com/a?a=1&b=2"),
        ("http://[2001:db8::1]:80/feed", "http://[2001:db8::1]/feed"),
        // Not a default port, or not this scheme's: kept.
        ("https://example.com:8443/rss", "https://example.com:8443/rss"),
        ("https://example.com:80/rss", "https://example.com:80/rss"),
        ("http://example.com:443/rss", "http://example.com:443/rss"),
        ("https://example.com:4430/rss", "https://example.com:4430/rss"),
    ])
    func spellingsOfOneFeedShareAKey(url: String, identity: String) {
        #expect(CanonicalURL.feedIdentity(url) == identity)
    }

    /// The article key is the Go worker's, port and all (data contract §4): unchanged.
    @Test func theArticleKeyKeepsTheDefaultPort() {
        #expect(CanonicalURL.canonicalize("https://Example.com:443/a#f") == "https://example.com:443/a")
    }
}
