import FeedParser
import PulseConfig
import PulseModel
@testable import SourceImport
import Testing

@Suite("export and round trips")
struct ExportTests {
    static let categories = CategoryConfig.contractCategories.map {
        CategoryDefinition(slug: $0.slug, name: $0.name, displayOrder: $0.displayOrder + 1)
    }

    /// Every column set and unset, and the values each format has to escape.
    static let sample = [
        SourceDefinition(slug: "alpha", name: "Alpha, \"the\" <first> & best", feedURL: "https://a.example.com/rss?x=1&y=2",
                         websiteURL: "https://a.example.com/", categorySlug: "world", language: "en",
                         fetchIntervalHours: 3, maxContentLength: 5000, isActive: true, languageDetection: false),
        SourceDefinition(slug: "beta", name: "Béta ünïcode ✓", feedURL: "https://b.example.com/feed", websiteURL: nil,
                         categorySlug: "podcasts", language: "pt", fetchIntervalHours: 168, maxContentLength: nil,
                         isActive: nil, languageDetection: true),
        SourceDefinition(slug: "gamma", name: " spaced name ", feedURL: "https://g.example.com/", websiteURL: nil,
                         categorySlug: "world", language: "es", fetchIntervalHours: 1, maxContentLength: 1,
                         isActive: false, languageDetection: true),
    ]

    @Test(arguments: SourceFileFormat.allCases)
    func exportThenImportGivesTheSameRows(format: SourceFileFormat) throws {
        let text = try SourceExport.render(Self.sample, categories: Self.categories, as: format)
        // OPML lists them by category; the database by slug.
        let read = try sources(text, as: format, settings: settings(stored: Self.sample)).sorted { $0.slug < $1.slug }
        #expect(read == Self.sample)
        // And a second export is the same text.
        #expect(try SourceExport.render(read, categories: Self.categories, as: format) == text)
    }

    @Test func tsvIsValuesBetweenTabs() throws {
        let text = try SourceExport.render(Array(Self.sample.prefix(2)), categories: Self.categories, as: .tsv)
        #expect(text == """
            slug\tname\tfeed_url\twebsite_url\tcategory\tlanguage\tfetch_interval_hours\tmax_content_length\tactive\tlanguage_detection
            alpha\tAlpha, "the" <first> & best\thttps://a.example.com/rss?x=1&y=2\thttps://a.example.com/\tworld\ten\t3\t5000\ttrue\tfalse
            beta\tBéta ünïcode ✓\thttps://b.example.com/feed\t\tpodcasts\tpt\t168\t\t\ttrue

            """)
    }

    @Test func csvQuotesPerRFC4180() throws {
        var source = Self.sample[1]
        source.name = "Line\nbreak, \"and\" quotes"
        let text = try SourceExport.render([source], categories: Self.categories, as: .csv)
        #expect(text.hasSuffix("\r\nbeta,\"Line\nbreak, \"\"and\"\" quotes\",https://b.example.com/feed,,podcasts,pt,168,,,true\r\n"))
        // Read back, the value is the same (the source rules then refuse its line break, on its line).
        let file = SourceFile.read(Array(text.utf8), name: "x.csv", format: .csv, opml: OPMLParser.parse)
        #expect(file.rows.map { $0.row.value("name") } == [source.name])
    }

    @Test func opmlGroupsByCategoryWithOurAttributes() throws {
        let text = try SourceExport.render(Self.sample, categories: Self.categories, as: .opml)
        #expect(text.contains("<opml version=\"2.0\" xmlns:pulse=\"\(SourceFile.opmlNamespace)\">"))
        #expect(text.contains("""
                <outline text="World" title="World">
                  <outline type="rss" text="Alpha, &quot;the&quot; &lt;first&gt; &amp; best" \
            title="Alpha, &quot;the&quot; &lt;first&gt; &amp; best" xmlUrl="https://a.example.com/rss?x=1&amp;y=2" \
            htmlUrl="https://a.example.com/" pulse:slug="alpha" pulse:category="world" pulse:language="en" \
            pulse:fetch_interval_hours="3" pulse:max_content_length="5000" pulse:active="true" pulse:language_detection="false"/>
            """))
        // Other readers see the folders and the feeds.
        let outlines = try OPMLParser.parse(Array(text.utf8)).outlines
        #expect(outlines.filter { $0.attribute("xmlUrl") == nil }.map { $0.attribute("text") } == ["World", "Podcasts"])
    }

    @Test func opmlKeepsTabsAndLineBreaksAndRefusesWhatXMLCannotHold() throws {
        var source = Self.sample[1]
        source.name = "tab\tand\nline"
        let text = try SourceExport.render([source], categories: Self.categories, as: .opml)
        #expect(text.contains("text=\"tab&#9;and&#10;line\""))
        #expect(try OPMLParser.parse(Array(text.utf8)).outlines.last?.attribute("text") == source.name)
        source.name = "bell\u{7}"
        #expect(throws: SourceExportError.self) { try SourceExport.render([source], categories: Self.categories, as: .opml) }
    }

    @Test func aSourceOfNoKnownCategoryIsAnOutlineOfTheBody() throws {
        var source = Self.sample[0]
        source.categorySlug = ""
        let text = try SourceExport.render([source], categories: Self.categories, as: .opml)
        #expect(text.contains("  <body>\n    <outline type=\"rss\""))
        #expect(!text.contains("pulse:category"))
        // Imported again, it needs a category: its own is gone.
        #expect(problems(text, as: .opml).first?.contains("no category") == true)
    }
}
