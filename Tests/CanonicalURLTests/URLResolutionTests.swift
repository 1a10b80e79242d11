import Testing
@testable import CanonicalURL

// RFC 3986 §5.4 examples, base "http://a/b/c/d;p?q". "g:h" is omitted here (non-http result,
// tested below as nil).
@Suite struct URLResolutionTests {
    static let base = "http://a/b/c/d;p?q"

    @Test(arguments: [
        // §5.4.1 normal examples
        ("g", "http://a/b/c/g"), ("./g", "http://a/b/c/g"), ("g/", "http://a/b/c/g/"),
        ("/g", "http://a/g"), ("//g", "http://g"), ("?y", "http://a/b/c/d;p?y"),
        ("g?y", "http://a/b/c/g?y"), ("#s", "http://a/b/c/d;p?q#s"), ("g#s", "http://a/b/c/g#s"),
        ("g?y#s", "http://a/b/c/g?y#s"), (";x", "http://a/b/c/;x"), ("g;x", "http://a/b/c/g;x"),
        ("g;x?y#s", "http://a/b/c/g;x?y#s"), ("", "http://a/b/c/d;p?q"), (".", "http://a/b/c/"),
        ("./", "http://a/b/c/"), ("..", "http://a/b/"), ("../", "http://a/b/"), ("../g", "http://a/b/g"),
        ("../..", "http://a/"), ("../../", "http://a/"), ("../../g", "http://a/g"),
        // §5.4.2 abnormal examples
        ("../../../g", "http://a/g"), ("../../../../g", "http://a/g"), ("/./g", "http://a/g"),
        ("/../g", "http://a/g"), ("g.", "http://a/b/c/g."), (".g", "http://a/b/c/.g"),
        ("g..", "http://a/b/c/g.."), ("..g", "http://a/b/c/..g"), ("./../g", "http://a/b/g"),
        ("./g/.", "http://a/b/c/g/"), ("g/./h", "http://a/b/c/g/h"), ("g/../h", "http://a/b/c/h"),
        ("g;x=1/./y", "http://a/b/c/g;x=1/y"), ("g;x=1/../y", "http://a/b/c/y"),
        ("g?y/./x", "http://a/b/c/g?y/./x"), ("g?y/../x", "http://a/b/c/g?y/../x"),
        ("g#s/./x", "http://a/b/c/g#s/./x"), ("g#s/../x", "http://a/b/c/g#s/../x"),
    ])
    func rfc3986Examples(_ reference: String, _ expected: String) {
        #expect(StoredURL.resolve(reference, against: Self.base) == expected)
    }

    @Test func strictParsingKeepsSchemeOnlyReferencesAbsolute() {
        // "http:g" is absolute under the strict §5.2.2 rules: no authority, so no http URL results.
        #expect(StoredURL.resolve("http:g", against: Self.base) == nil)
        #expect(StoredURL.resolve("g:h", against: Self.base) == nil)
    }

    @Test func absoluteReferencesReplaceTheBase() {
        #expect(StoredURL.resolve("https://other.example/x/../y", against: Self.base) == "https://other.example/y")
        #expect(StoredURL.resolve("  /feed.xml  ", against: "https://news.example/rss/index.html")
            == "https://news.example/feed.xml")
        #expect(StoredURL.resolve("//cdn.example/img.png", against: "https://news.example/a") == "https://cdn.example/img.png")
    }

    @Test func nonWebResultsAndBasesAreRefused() {
        #expect(StoredURL.resolve("javascript:alert(1)", against: Self.base) == nil)
        #expect(StoredURL.resolve("mailto:a@b.example", against: Self.base) == nil)
        #expect(StoredURL.resolve("g", against: "ftp://a/b") == nil)
        #expect(StoredURL.resolve("g", against: "/relative/base") == nil)
        #expect(StoredURL.resolve("g", against: "http:///nohost") == nil)
    }

    @Test func emptyBasePathMergesWithLeadingSlash() {
        #expect(StoredURL.resolve("g", against: "http://a") == "http://a/g")
        #expect(StoredURL.resolve("?q=1", against: "http://a") == "http://a?q=1")
    }

    /// The shared resolver behind FeedParser and OpenGraph (no scheme rules of its own).
    @Test func sharedResolverForFeedsAndPages() {
        let base = "https://a.example/b/c/d;p?q"
        #expect(URLReference.resolve("g", against: base) == "https://a.example/b/c/g")
        #expect(URLReference.resolve("./g/", against: base) == "https://a.example/b/c/g/")
        #expect(URLReference.resolve("//g.example/x", against: base) == "https://g.example/x")
        #expect(URLReference.resolve("#s", against: base) == "https://a.example/b/c/d;p?q#s")
        #expect(URLReference.resolve("../../../g", against: base) == "https://a.example/g")
        #expect(URLReference.resolve("/r s", against: base) == "https://a.example/r s")
        #expect(URLReference.resolve("g:h", against: base) == "g:h")
        #expect(URLReference.resolve("g", against: "not absolute") == nil)
        #expect(URLReference.hasScheme("HTTPS://x") && !URLReference.hasScheme("/a:b") && !URLReference.hasScheme("1a:b"))
        #expect(URLReference.split("HTTP://h:1/p?q#f") == URLReference.Parts(scheme: "http", authority: "h:1", path: "/p", query: "q", fragment: "f"))
    }
}

/// ASCII references are split on their bytes; the Character-by-Character split (used for all
/// other text) is the reference. Random references from the delimiters, scheme characters,
/// dot segments, CR LF and the empty pieces that make the Appendix B cases.
struct ASCIISplitEquivalenceTests {
    static func starts(_ parts: URIComponents) -> [String.Index?] {
        let pieces: [Substring?] = [parts.scheme, parts.authority, parts.path, parts.query, parts.fragment]
        return pieces.map { $0?.startIndex }
    }

    @Test func randomASCIIReferencesSplitAlike() {
        let pieces = ["http", "HTTPS", "a+b.c-d", "1x", ":", "//", "/", "?", "#", "@", "host", "example.com", ":8080", "..", ".",
                      "a", "%2F", " ", "\r\n", "\t", "", "x:y", "?q=1&r=2", "#frag", "mailto", "-", "+"]
        var generator = SystemRandomNumberGenerator()  // a failure prints its case
        for _ in 0..<20_000 {
            let text = (0..<Int.random(in: 0...8, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            let fast = URIComponents(ascii: text[...])
            let general = URIComponents(characters: text[...])
            #expect(fast == general, "\(text.debugDescription)")
            // Equal substrings could still cover different ranges: compare where each piece lies too.
            #expect(Self.starts(fast) == Self.starts(general), "\(text.debugDescription)")
        }
    }
}
