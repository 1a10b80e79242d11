import FeedParser
import PulseConfig
import PulseModel
@testable import SourceImport
import Testing

@Suite("TSV and CSV files")
struct DelimitedFileTests {
    @Test func tsvRowsBecomeSourcesWithEveryColumn() throws {
        let read = try sources(tsv(
            "alpha\tAlpha News\thttps://alpha.example.com/rss\thttps://alpha.example.com/\tworld\ten\t3\t5000\tfalse\toff",
            "beta\tBeta\thttps://beta.example.com/rss\t\ttechnology\tpt\t\t\t\t"), as: .tsv)
        #expect(read == [
            SourceConfig(slug: "alpha", name: "Alpha News", feedURL: "https://alpha.example.com/rss",
                         websiteURL: "https://alpha.example.com/", categorySlug: "world", language: "en",
                         fetchIntervalHours: 3, maxContentLength: 5000, isActive: false, languageDetection: false),
            // Empty cells: feeds.yaml's defaults, and no `active` (the database keeps its value).
            SourceConfig(slug: "beta", name: "Beta", feedURL: "https://beta.example.com/rss", categorySlug: "technology",
                         language: "pt", fetchIntervalHours: 2, maxContentLength: nil, isActive: nil, languageDetection: true),
        ])
    }

    @Test func defaultsComeFromTheConfig() throws {
        var defaults = SourceDefaults()
        (defaults.fetchIntervalHours, defaults.languageDetection) = (6, false)
        let read = try sources(tsv("a\tA\thttps://a.example.com/\t\tworld\ten"), as: .tsv, settings: settings(defaults: defaults))
        #expect(read.map(\.fetchIntervalHours) == [6])
        #expect(read.map(\.languageDetection) == [false])
    }

    @Test func crlfBOMBlankLinesAndShortRowsAreRead() throws {
        let text = "\u{FEFF}slug\tname\tfeed_url\tcategory\tlanguage\r\n\r\na\tA\thttps://a.example.com/\tworld\ten\r\n"
            + "b\tB\thttps://b.example.com/\tscience\r\n"
        let found = problems(text, as: .tsv)
        // The short row lacks only its language: line 4, after the blank line 2.
        #expect(found == ["4: no language: the row names none, and no --language CODE was given"])
        #expect(try sources(text, as: .tsv, settings: settings(language: "es")).map(\.language) == ["en", "es"])
    }

    @Test func everyInvalidRowIsReportedOnItsLine() {
        let found = problems(tsv(
            "good\tGood\thttps://good.example.com/\t\tworld\ten",
            "bad-url\tBad URL\tftp://x.example.com/\t\tworld\ten",
            "Bad_Slug\tBad slug\thttps://s.example.com/\t\tworld\ten",
            "lang\tLanguage\thttps://l.example.com/\t\tworld\tEnglish",
            "interval\tInterval\thttps://i.example.com/\t\tworld\ten\t0",
            "cat\tCategory\thttps://c.example.com/\t\twrold\ten",
            "active\tActive\thttps://a.example.com/\t\tworld\ten\t\t\tmaybe",
            "good\tAgain\thttps://again.example.com/\t\tworld\ten",
            "dupfeed\tSame feed\thttps://good.example.com/\t\tworld\ten",
            "user\tUser\thttps://me:secret@u.example.com/\t\tworld\ten"), as: .tsv)
        #expect(found == [
            "3: feed_url 'ftp://x.example.com/' must be an absolute http:// or https:// URL",
            "4: slug 'Bad_Slug' is invalid: use 1-100 lowercase letters, digits and '-', starting with a letter or digit",
            "5: language 'English' is invalid: use a two-letter lowercase ISO 639-1 code such as 'en'",
            "6: 'fetch_interval_hours' must be between 1 and 168 (got 0)",
            "7: unknown category 'wrold' (did you mean 'world'?); known categories: world, technology, business, sports, "
                + "entertainment, science, health, politics, podcasts, videos",
            "8: 'active' must be true or false (got 'maybe')",
            "9: duplicate source slug 'good' (first on line 2, again on line 9)",
            "10: feed_url is already used by source 'good' (line 2); each feed must be listed once",
            "11: feed_url must not contain a user name or password (value not shown)",
        ])
    }

    @Test func problemsNameTheFileTheLineAndTheSource() throws {
        let result = imported(tsv("alpha\tAlpha\tnot a url\t\tworld\ten"), as: .tsv, name: "feeds.tsv")
        guard case .failure(let error) = result else { throw TestFailure("accepted an invalid row") }
        #expect(error.issues.map(\.description)
                == ["feeds.tsv:2: source 'alpha': feed_url 'not a url' must be an absolute http:// or https:// URL"])
    }

    @Test func theHeaderIsCheckedOnce() {
        #expect(problems("slug\tname\tfeed_url\tcategry\tlanguage\tslug\n", as: .tsv) == [
            "1: column 4: unknown key 'categry' in 'source' (did you mean 'category'?)",
            "1: column 'slug' appears twice (columns 1 and 6)",
        ])
        #expect(problems("slug\tname\tcategory\n", as: .tsv)
                == ["1: the header row has no 'feed_url' column (columns: \(SourceTable.columns.joined(separator: ", ")))"])
        #expect(problems("slug\tname\tfeed_url\tdatabase_url\n", as: .tsv).first?.contains("secrets never come") == true)
        #expect(problems("", as: .tsv) == ["-: the file is empty (expected a header row)"])
    }

    @Test func aRowLongerThanTheHeaderIsRefused() {
        #expect(problems("slug\tname\tfeed_url\na\tA\thttps://a.example.com/\textra\n", as: .tsv,
                         settings: settings(category: "world", language: "en"))
                == ["2: 4 cells, but the header row has 3 columns"])
    }

    @Test func textThatIsNotUTF8IsRefusedOnItsLine() {
        let bytes = Array("slug\tname\tfeed_url\n".utf8) + [0x61, 0x09, 0xE9, 0x09] + Array("https://a.example.com/\n".utf8)
        let file = SourceFile.read(bytes, name: "latin1.tsv", format: .tsv, opml: OPMLParser.parse)
        #expect(file.issues.map(\.line) == [2])
        #expect(file.issues.first?.message.contains("not UTF-8") == true)
    }

    // MARK: CSV

    @Test func csvFollowsRFC4180() throws {
        let text = "slug,name,feed_url,category,language\r\n"
            + "a,\"Comma, \"\"quoted\"\" name\",https://a.example.com/,world,en\r\n"
            + "b,\"Two\r\nlines\",https://b.example.com/,world,en\r\n"
            + "c,C,https://c.example.com/,world,en"  // no line break at the end
        let file = SourceFile.read(Array(text.utf8), name: "x.csv", format: .csv, opml: OPMLParser.parse)
        #expect(file.issues.isEmpty)
        #expect(file.rows.map(\.row.line) == [2, 3, 5])
        #expect(file.rows.map { $0.row.value("name") } == ["Comma, \"quoted\" name", "Two\r\nlines", "C"])
        // A line break is a control character: the source rules refuse it in a name, on the row's line.
        #expect(problems(text, as: .csv) == ["3: name must not contain control or bidirectional-override characters"])
    }

    @Test func csvSyntaxErrorsAreReportedAndReadingGoesOn() {
        let text = "slug,name,feed_url,category,language\n"
            + "a,A \"quoted\" badly,https://a.example.com/,world,en\n"
            + "b,\"B\"x,https://b.example.com/,world,en\n"
            + "c,C,https://c.example.com/,wrold,en\n"
            + "d,\"never closed,https://d.example.com/,world,en\n"
        #expect(problems(text, as: .csv) == [
            "2: a quote inside an unquoted field (quote the whole field and write the quote twice: \"\")",
            "3: text after a closing quote (a quote inside a quoted field is written twice: \"\")",
            "4: unknown category 'wrold' (did you mean 'world'?); known categories: world, technology, business, sports, "
                + "entertainment, science, health, politics, podcasts, videos",
            "5: a quoted field opened here is never closed",
        ])
    }

    @Test func csvQuotedFieldsMayHoldTheSeparatorsAndEmptyQuotesAreEmpty() throws {
        let read = try sources("slug,name,feed_url,website_url,category,language\n"
                               + "a,\"x,y\",\"https://a.example.com/?q=1,2\",\"\",world,en\n", as: .csv)
        #expect(read.map(\.name) == ["x,y"])
        #expect(read.map(\.feedURL) == ["https://a.example.com/?q=1,2"])
        #expect(read.map(\.websiteURL) == [nil])
    }

    // MARK: Format

    @Test(arguments: [
        ("sources.opml", "slug,name", SourceFileFormat.opml), ("list.XML", "", .opml), ("a.tsv", "<x", .tsv),
        ("a.tab", "", .tsv), ("a.CSV", "a\tb", .csv), ("-", "  \n<?xml version='1.0'?><opml/>", .opml),
        ("export.txt", "slug\tname\n", .tsv), ("export", "slug,name\n", .csv), ("dir.d/file", "\u{FEFF}<opml/>", .opml),
    ])
    func formatFromTheExtensionElseTheContent(path: String, content: String, format: SourceFileFormat) {
        #expect(SourceFileFormat.detect(path: path, bytes: Array(content.utf8)) == format)
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
