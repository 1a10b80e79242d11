import PulseConfig
import PulseModel
@testable import SourceImport
import Testing

/// One feed written several ways (host case, a default port, a fragment) is one source.
@Suite("one feed, several spellings")
struct SameFeedTests {
    static func stored(_ slug: String, _ feedURL: String) -> SourceDefinition {
        SourceDefinition(slug: slug, name: slug, feedURL: feedURL, websiteURL: nil, categorySlug: "world", language: "en",
                         fetchIntervalHours: 2, maxContentLength: nil, isActive: true, languageDetection: true)
    }

    @Test(arguments: [SourceFileFormat.tsv, .csv])
    func spellingsOfOneFeedInAFileAreDuplicates(format: SourceFileFormat) {
        let rows = ["https://example.com/rss", "https://EXAMPLE.com/rss", "https://example.com:443/rss",
                    "https://example.com/rss#frag", "HTTPS://Example.COM:443/rss#top", "https://example.com:8443/rss",
                    "http://example.com:80/rss"]
        let separator = format == .tsv ? "\t" : ","
        let text = (["slug,name,feed_url,category,language"] + rows.enumerated().map { "s\($0.offset),Name,\($0.element),world,en" })
            .map { $0.replacingOccurrences(of: ",", with: separator) }.joined(separator: "\n") + "\n"
        #expect(problems(text, as: format) == [3, 4, 5, 6].map { line in
            "\(line): feed_url is already used by source 's0' (line 2, as 'https://example.com/rss'); each feed must be listed once"
        })
    }

    @Test func aSpellingOfAStoredFeedIsThatSource() throws {
        let settings = settings(stored: [Self.stored("kept", "https://news.example.org/feed")], category: "world", language: "en")
        // Under another slug: refused, as for the same spelling.
        #expect(problems(tsv("other\tOther\thttps://NEWS.example.org:443/feed#latest\t\tworld\ten"), as: .tsv, settings: settings)
                == ["2: feed_url is already used by source 'kept' in the database; each feed must be listed once"])
        // With no slug (a feed reader's OPML), it is the stored source again.
        let opml = """
            <opml version="2.0"><body><outline text="Renamed" xmlUrl="https://News.Example.org/feed#x"/></body></opml>
            """
        #expect(try sources(opml, as: .opml, settings: settings).map(\.slug) == ["kept"])
    }
}
