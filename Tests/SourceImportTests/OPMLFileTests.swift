import FeedParser
import PulseConfig
import PulseModel
@testable import SourceImport
import Testing

@Suite("OPML files")
struct OPMLFileTests {
    static let feedReader = """
        <?xml version="1.0" encoding="UTF-8"?>
        <opml version="2.0">
          <head><title>Subscriptions</title></head>
          <body>
            <outline text="Technology" title="Technology">
              <outline type="rss" text="Ars Technica" title="Ars Technica"
                       xmlUrl="https://feeds.arstechnica.example/index" htmlUrl="https://arstechnica.example"/>
              <outline text="Gadgets">
                <outline type="rss" text="Gizmodo &amp; Co" xmlUrl="https://gizmodo.example/rss"/>
              </outline>
            </outline>
            <outline text="science">
              <outline type="rss" text="Ciência Hoje" xmlUrl="https://cienciahoje.example/feed/"/>
            </outline>
            <outline text="Reading list">
              <outline type="rss" text="" title="Example News" xmlUrl="https://www.example.org/news.xml"/>
            </outline>
            <outline type="rss" text="No folder" xmlUrl="https://nofolder.example/rss"/>
            <outline type="link" text="A link, not a feed" url="https://example.com/"/>
          </body>
        </opml>
        """

    @Test func aFeedReadersOutlinesBecomeSources() throws {
        let read = try sources(Self.feedReader, as: .opml, settings: settings(category: "world", language: "en"))
        #expect(read.map(\.slug) == ["ars-technica", "gizmodo-co", "ciencia-hoje", "example-news", "no-folder"])
        #expect(read.map(\.name) == ["Ars Technica", "Gizmodo & Co", "Ciência Hoje", "Example News", "No folder"])
        // The nearest folder named after a category (Gadgets names none: its parent does), else --category.
        #expect(read.map(\.categorySlug) == ["technology", "technology", "science", "world", "world"])
        #expect(read.map(\.websiteURL) == ["https://arstechnica.example", nil, nil, nil, nil])
        #expect(Set(read.map(\.language)) == ["en"])
        #expect(read.allSatisfy { $0.isActive == nil && $0.fetchIntervalHours == 2 })
    }

    @Test func withoutDefaultsEachRowSaysWhatItLacksOnItsLine() {
        #expect(problems(Self.feedReader, as: .opml, settings: settings(language: "en")) == [
            "16: no category: its folder 'Reading list' names no known category, and no --category SLUG was given",
            "18: no category: the outline is in no folder, and no --category SLUG was given",
        ])
        let found = problems(Self.feedReader, as: .opml)
        #expect(found.count == 7 && found.allSatisfy { $0.contains("no language") || $0.contains("no category") })
        // The line of a start tag written over two lines is the line it starts on.
        #expect(found.first == "6: no language: the row names none, and no --language CODE was given")
    }

    @Test func ourOwnAttributesCarryTheOtherColumns() throws {
        let text = """
            <opml version="2.0" xmlns:p="\(SourceFile.opmlNamespace)"><body>
            <outline text="World">
            <outline text="A" xmlUrl="https://a.example.com/" p:slug="alpha" p:category="science" p:language="pt"
                     p:fetch_interval_hours="5" p:max_content_length="900" p:active="false" p:language_detection="false"/>
            </outline></body></opml>
            """
        #expect(try sources(text, as: .opml) == [
            SourceConfig(slug: "alpha", name: "A", feedURL: "https://a.example.com/", categorySlug: "science",
                         language: "pt", fetchIntervalHours: 5, maxContentLength: 900, isActive: false,
                         languageDetection: false),
        ])
    }

    @Test func ourAttributesAreValidatedOnTheOutlinesLine() {
        let text = """
            <opml version="2.0" xmlns:pulse="\(SourceFile.opmlNamespace)"><body>
            <outline text="A" xmlUrl="https://a.example.com/" pulse:slug="a" pulse:category="world" pulse:language="en"
              pulse:fetch_interval="5"/>
            <outline text="B" xmlUrl="https://b.example.com/" pulse:slug="b" pulse:category="world" pulse:language="en"
              pulse:fetch_interval_hours="500"/>
            <outline text="Orphan" pulse:slug="c"/>
            </body></opml>
            """
        #expect(problems(text, as: .opml) == [
            "2: unknown key 'fetch_interval' in 'source' (did you mean 'fetch_interval_hours'?)",
            "4: 'fetch_interval_hours' must be between 1 and 168 (got 500)",
            "6: this outline has pulse: attributes but no 'xmlUrl' (the feed's URL)",
        ])
    }

    @Test func notWellFormedIsRefusedWithLibxml2sLine() {
        let found = problems("<opml version=\"2.0\">\n<body>\n<outline text=\"A\" xmlUrl=\"x\">\n</body></opml>\n", as: .opml)
        #expect(found.count == 1)
        #expect(found.first?.hasPrefix("4: XML error:") == true, "\(found)")
        #expect(problems("<rss version=\"2.0\"><channel/></rss>", as: .opml)
                == ["1: not an OPML document: the root element is <rss>"])
    }

    /// The feed parser's protections: no external entity or DTD is read, no entity is expanded.
    @Test func externalEntitiesAndDTDsAreNeverLoaded() throws {
        let text = """
            <?xml version="1.0"?>
            <!DOCTYPE opml SYSTEM "http://127.0.0.1:9/opml.dtd" [
              <!ENTITY secret SYSTEM "file:///etc/passwd">
              <!ENTITY lol "lol">
              <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
            ]>
            <opml version="2.0"><head><title>&secret;</title></head><body>
            <outline text="Name &lol2; end" xmlUrl="https://a.example.com/"/>
            </body></opml>
            """
        let document = try OPMLParser.parse(Array(text.utf8))
        #expect(document.outlines.count == 1)
        #expect(document.outlines.first?.line == 8)
        #expect(document.outlines.first?.attribute("text") == "Name  end")
    }

    @Test func linesSurviveCommentsCDATAAndLongFiles() throws {
        var text = "<opml version=\"2.0\">\n<!-- <outline text=\"in a comment\"\n> -->\n<head><title><![CDATA[<outline>\n]]></title></head>\n<body>\n"
        for index in 0..<70_000 { text += "<outline text=\"F\(index)\" xmlUrl=\"https://f\(index).example/\"/>\n" }
        text += "</body></opml>\n"
        let document = try OPMLParser.parse(Array(text.utf8))
        #expect(document.outlines.count == 70_000)
        #expect(document.outlines.first?.line == 7)
        // Past libxml2's 16-bit line numbers.
        #expect(document.outlines.last?.line == 7 + 69_999)
    }

    @Test func otherCharsetsAreDecodedAsTheFeedParserDoes() throws {
        let latin1 = Array("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<opml><body><outline text=\"Ci".utf8)
            + [0xEA] + Array("ncia\" xmlUrl=\"https://c.example/\"/></body></opml>".utf8)
        #expect(try OPMLParser.parse(latin1).outlines.first?.attribute("text") == "Ciência")
    }

    /// As TSV and CSV: a byte that is not UTF-8 or a NUL is refused on its line, never guessed at
    /// as Latin-1 or dropped.
    @Test func invalidUTF8AndControlCharactersAreRefusedOnTheirLine() {
        let lines = ["<?xml version=\"1.0\" encoding=\"UTF-8\"?>", "<opml version=\"2.0\"><body>",
                     "<outline text=\"Caf\u{E9}\" xmlUrl=\"https://cafe.example/rss\"/>", "</body></opml>"]
        func read(_ third: [UInt8]) -> [String] {
            var bytes = Array((lines[0] + "\n" + lines[1] + "\n").utf8) + third + Array(("\n" + lines[3] + "\n").utf8)
            bytes.insert(contentsOf: [0xEF, 0xBB, 0xBF], at: 0)
            return SourceFile.read(bytes, name: "x.opml", format: .opml, opml: OPMLParser.parse).issues.map { "\($0.line ?? 0): \($0.message)" }
        }
        #expect(read(Array(lines[2].utf8)).isEmpty)
        let latin1 = Array("<outline text=\"Caf".utf8) + [0xE9] + Array("\" xmlUrl=\"https://cafe.example/rss\"/>".utf8)
        #expect(read(latin1) == ["3: not UTF-8 text (save the file as UTF-8)"])
        #expect(read(Array("<outline text=\"Ca\u{0}f\" xmlUrl=\"https://cafe.example/rss\"/>".utf8))
                == ["3: holds a NUL byte, which XML 1.0 cannot carry"])
        #expect(read(Array("<outline text=\"Ca\u{1B}[31m\" xmlUrl=\"https://cafe.example/rss\"/>".utf8))
                == ["3: holds the control character U+001B, which XML 1.0 cannot carry"])
    }
}
