import Foundation
import Testing
import HTMLDocument
@testable import OpenGraph

struct ResolverTests {
    // RFC 3986 section 5.4 examples.
    static let base = "http://a/b/c/d;p?q"
    static let cases: [(String, String)] = [
        ("g:h", "g:h"), ("g", "http://a/b/c/g"), ("./g", "http://a/b/c/g"), ("g/", "http://a/b/c/g/"),
        ("/g", "http://a/g"), ("//g", "http://g/"), ("?y", "http://a/b/c/d;p?y"), ("g?y", "http://a/b/c/g?y"),
        ("#s", "http://a/b/c/d;p?q#s"), ("g#s", "http://a/b/c/g#s"), (";x", "http://a/b/c/;x"), ("", "http://a/b/c/d;p?q"),
        (".", "http://a/b/c/"), ("./", "http://a/b/c/"), ("..", "http://a/b/"), ("../g", "http://a/b/g"),
        ("../..", "http://a/"), ("../../g", "http://a/g"), ("../../../g", "http://a/g"), ("/./g", "http://a/g"),
        ("/../g", "http://a/g"), ("g.", "http://a/b/c/g."), ("..g", "http://a/b/c/..g"), ("./../g", "http://a/b/g"),
        ("g/./h", "http://a/b/c/g/h"), ("g/../h", "http://a/b/c/h"), ("g;x=1/../y", "http://a/b/c/y"),
    ]

    @Test(arguments: cases)
    func rfc3986Examples(_ reference: String, _ expected: String) {
        let resolved = URLResolver.resolve(reference, against: Self.base)
        // "//g" has an empty path; http(s) URLs get "/" as browsers do.
        #expect(resolved == expected)
    }

    @Test func safeURLRules() {
        #expect(SafeURL.absoluteHTTP("javascript:alert(1)", base: "https://a.example/") == nil)
        #expect(SafeURL.absoluteHTTP("ftp://a.example/x", base: "https://a.example/") == nil)
        #expect(SafeURL.absoluteHTTP("https:///nohost", base: "https://a.example/") == nil)
        #expect(SafeURL.absoluteHTTP("  /x\n.jpg ", base: "https://a.example/dir/") == "https://a.example/x.jpg")
        #expect(SafeURL.absoluteHTTP("https://a.example:8443/x", base: "https://b.example/") == "https://a.example:8443/x")
        #expect(SafeURL.absoluteHTTP("https://a.example:84x/x", base: "https://b.example/") == nil)
    }
}

struct MetadataTests {
    @Test func readsMetaAndJSONLD() throws {
        let html = """
        <html><head><title>Site | Headline here</title>
        <meta property="og:title" content="OG Headline &amp;amp; more"><meta name="author" content="Meta Author">
        <meta property="og:site_name" content="The Site"><meta property="article:published_time" content="2024-01-02T03:04:05Z">
        <meta name="description" content="Desc">
        <script type="application/ld+json">{"@context":"https://schema.org","@type":"NewsArticle","headline":"LD Headline",
         "author":[{"@type":"Person","name":"Ann"},{"@type":"Person","name":"Bo"}],"datePublished":"2024-05-06","publisher":{"name":"LD Pub"}}</script>
        </head><body></body></html>
        """
        let document = try HTMLDocument.parse(html: html)
        let metadata = OpenGraph.metadata(in: document, pageURL: "https://x.example/")
        #expect(metadata.title == "LD Headline")
        #expect(metadata.byline == "Ann, Bo")
        #expect(metadata.siteName == "LD Pub")
        #expect(metadata.publishedTime == "2024-05-06")
        #expect(metadata.excerpt == "Desc")
    }

    @Test func metaOnlyFallbacksAndEntityDecoding() throws {
        let html = """
        <html><head><meta property="og:title" content="OG &amp;amp; Title"><meta name="author" content="Meta Author">
        <meta property="og:site_name" content="The Site"><meta property="article:published_time" content="2024-01-02T03:04:05Z">
        </head></html>
        """
        let metadata = OpenGraph.metadata(in: try HTMLDocument.parse(html: html), pageURL: "https://x.example/")
        #expect(metadata.title == "OG & Title")
        #expect(metadata.byline == "Meta Author")
        #expect(metadata.siteName == "The Site")
        #expect(metadata.publishedTime == "2024-01-02T03:04:05Z")
    }

    @Test func declaredURLPrefersCanonicalThenOGURL() throws {
        func declared(_ head: String) throws -> String? {
            OpenGraph.declaredURL(in: try HTMLDocument.parse(html: "<html><head>\(head)</head><body></body></html>"))
        }
        #expect(try declared("<meta property='og:url' content='https://a.example/og'><link rel='canonical' href=' https://a.example/c '>") == "https://a.example/c")
        #expect(try declared("<link rel='canonical' href='/relative'><meta property='og:url' content='https://a.example/og'>") == "https://a.example/og")
        #expect(try declared("<link rel='canonical' href='javascript:alert(1)'>") == nil)
        #expect(try declared("<link rel='canonical' href='http://user@a.example/'>") == nil)
        #expect(try declared("") == nil)
    }

    @Test func textSimilarity() {
        #expect(TextSimilarity.similarity("a b c", "a b c") == 1)
        #expect(TextSimilarity.similarity("a b c", "x y z") == 0)
        #expect(TextSimilarity.similarity("", "x") == 0)
    }

    /// The ASCII path answers exactly what the general one does (they differ only in cost), on
    /// titles and headings made of words in any case, digits, `_`, punctuation, CR LF and tabs.
    @Test func asciiSimilarityMatchesTheGeneralRule() {
        var generator = SystemRandomNumberGenerator()
        let words = ["Budget", "vote", "VOTE", "budget", "2024", "a", "_", "x_1", "Council's", "rail-strike", "", "e.g."]
        let separators = [" ", "  ", "\t", "\r\n", ", ", " - ", ": ", "|", "!?", "\u{7F}"]
        func text() -> String {
            (0..<Int.random(in: 0...8, using: &generator)).map { _ in
                words.randomElement(using: &generator)! + separators.randomElement(using: &generator)!
            }.joined()
        }
        for _ in 0..<3_000 {
            let (a, b) = (text(), text())
            let ascii = TextSimilarity.asciiSimilarity(a, b)
            #expect(ascii == TextSimilarity.generalSimilarity(a, b), "\(a.debugDescription) / \(b.debugDescription)")
            #expect(ascii != nil)
        }
        #expect(TextSimilarity.asciiSimilarity("Budget vote", "Budget vote") == 1)
        #expect(TextSimilarity.asciiSimilarity("Budget vote", "budget VOTE passes") == 1 - 6.0 / 18)
        // Non-ASCII text takes the general path (U+212A lower-cases to an ASCII k).
        #expect(TextSimilarity.asciiSimilarity("\u{212A}ey", "key") == nil)
        #expect(TextSimilarity.similarity("\u{212A}ey", "key") == 1)
        #expect(TextSimilarity.similarity("Café noir", "cafe noir") == TextSimilarity.generalSimilarity("Café noir", "cafe noir"))
    }

    /// A page's title and heading can be any length: the pairwise ASCII comparison is capped, and
    /// past the cap the texts take the hashed path (linear), with the same answer.
    @Test func longTitlesAndHeadingsLeaveThePairwiseScan() {
        let title = (0..<200_000).map { "w\($0 % 5_000)" }.joined(separator: " ")
        let heading = (0..<200_000).map { "w\($0 % 7_000)" }.joined(separator: " ")
        #expect(TextSimilarity.asciiSimilarity(title, heading) == nil)
        #expect(TextSimilarity.similarity(title, heading) == TextSimilarity.generalSimilarity(title, heading))
        // At the cap the pairwise path still answers, and answers the same.
        let a = (0..<64).map { "a\($0)" }.joined(separator: " ")
        let b = (0..<64).map { "a\($0 * 2)" }.joined(separator: " ")
        #expect(64 * 64 <= TextSimilarity.maxPairwiseComparisons)
        #expect(TextSimilarity.asciiSimilarity(a, b) == TextSimilarity.generalSimilarity(a, b))
        #expect(TextSimilarity.asciiSimilarity(a + " x", b) == nil)
    }
}

/// `metaValues` skips its Character filters when the bytes show there is nothing to filter; the
/// keys must stay those the filters give, for tabs, spaces, dots and non-ASCII in names.
@Suite struct MetaKeyShortcutTests {
    static func referenceKeys(property: String?, name: String?) -> [String] {
        var keys: [String] = []
        var matched = false
        if let property {
            for token in property.lowercased().split(whereSeparator: { $0 == " " }) {
                let key = String(token.filter { $0 != "\t" })
                let parts = key.split(separator: ":", maxSplits: 1).map(String.init)
                if parts.count == 2, OpenGraph.propertyPrefixes.contains(parts[0]), OpenGraph.propertyNames.contains(parts[1]) {
                    keys.append(key)
                    matched = true
                }
            }
        }
        if !matched, let name {
            let kept = name.lowercased().filter { !$0.isWhitespace }
            let key = String(String.UnicodeScalarView(kept.unicodeScalars.map { $0 == "." ? ":" : $0 }))
            if OpenGraph.nameNames.contains(key) {
                keys.append(key)
            } else if let separator = key.lastIndex(where: { $0 == ":" || $0 == "-" }) {
                let prefix = String(key[..<separator])
                let suffix = String(key[key.index(after: separator)...])
                if OpenGraph.namePrefixes.contains(prefix), OpenGraph.nameNames.contains(suffix) { keys.append(key) }
                else if key == "parsely-pub-date" { keys.append(key) }
            }
        }
        return keys
    }

    @Test(arguments: [
        ("og:title", nil), ("OG:Title", nil), ("og:\ttitle", nil), ("og:title  dc:creator", nil), ("og:tïtle", nil),
        (nil, "DC.Title"), (nil, "dc . title"), (nil, "twitter:\u{A0}title"), (nil, "Author"), (nil, "weibo:article:title"),
        (nil, "parsely-pub-date"), (nil, "Parsely-Title"), (nil, "dcterm.description\n"), ("x:y", "description"),
    ] as [(String?, String?)])
    func keysAreTheFiltersKeys(property: String?, name: String?) throws {
        var attributes = ""
        if let property { attributes += " property=\"\(property)\"" }
        if let name { attributes += " name=\"\(name)\"" }
        let html = "<html><head><meta\(attributes) content=\"v\"></head><body></body></html>"
        let values = OpenGraph.metaValues(in: try HTMLDocument.parse(html: html))
        #expect(Set(values.keys) == Set(Self.referenceKeys(property: property, name: name)), "\(String(describing: property)) \(String(describing: name))")
    }
}
