import ArticleStore
import Foundation
import PulseModel
import TestSupport
import Testing

/// `--import-sources` and `--export-sources` end to end: the binary against a real database.
@Suite(.tags(.integration), .needsDatabase)
struct SourceFileImportTests {
    /// A scratch folder with a feeds.yaml of no sources (the contract's categories, the defaults).
    struct Folder {
        let url: URL
        var config: String { url.appendingPathComponent("feeds.yaml").path }

        init() throws {
            url = FileManager.default.temporaryDirectory.appendingPathComponent("import-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            try "version: 1\nsources: []\n".write(toFile: config, atomically: true, encoding: .utf8)
        }

        func write(_ name: String, _ text: String) throws -> String {
            let path = url.appendingPathComponent(name).path
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }

        func remove() { try? FileManager.default.removeItem(at: url) }
    }

    static func run(_ arguments: [String], _ database: TestDatabase) async throws -> CommandLineTests.Run {
        try await CommandLineTests.run(arguments, environment: ["DATABASE_URL": database.url])
    }

    /// A database migrated by the binary, as an operator would.
    static func migrated(_ database: TestDatabase, config: String) async throws {
        let migrate = try await run(["--migrate", "--config", config], database)
        #expect(migrate.status == 0, "\(migrate.stderr)")
    }

    static func storedSources(_ database: TestDatabase) async throws -> [SourceDefinition] {
        let connection = try await database.connect()
        let sources = try await ArticleStore(connection: connection).storedSources()
        await connection.close()
        return sources
    }

    static let header = "slug\tname\tfeed_url\twebsite_url\tcategory\tlanguage\tfetch_interval_hours\tactive\n"

    @Test func aFileWithOneBadRowWritesNothingAndNamesItsLine() async throws {
        let folder = try Folder()
        defer { folder.remove() }
        try await TestDatabase.with { database in
            try await Self.migrated(database, config: folder.config)
            let file = try folder.write("sources.tsv", Self.header
                + "first\tFirst\thttps://first.example/rss\t\tworld\ten\t\t\n"
                + "second\tSecond\thttps://second.example/rss\t\tsceince\ten\t\t\n"
                + "third\tThird\thttps://third.example/rss\t\ttechnology\tpt\t4\tfalse\n")
            let refused = try await Self.run(["--import-sources", file, "--config", folder.config], database)
            #expect(refused.status == 64)
            #expect(refused.stderr.contains("sources.tsv: 1 problem, nothing imported"), "\(refused.stderr)")
            #expect(refused.stderr.contains("sources.tsv:3: source 'second': unknown category 'sceince' (did you mean 'science'?)"),
                    "\(refused.stderr)")
            #expect(try await Self.storedSources(database).isEmpty)

            // Fixed, a dry run says what it would do and still writes nothing.
            try (try String(contentsOfFile: file, encoding: .utf8)).replacingOccurrences(of: "sceince", with: "science")
                .write(toFile: file, atomically: true, encoding: .utf8)
            let dry = try await Self.run(["--import-sources", file, "--config", folder.config, "--dry-run"], database)
            #expect(dry.status == 0, "\(dry.stderr)")
            #expect(dry.stdout.contains("dry run, nothing written: sources: 3 new, 0 updated, 0 unchanged"), "\(dry.stdout)")
            #expect(try await Self.storedSources(database).isEmpty)
        }
    }

    @Test func importingTheSameFileTwiceChangesNothing() async throws {
        let folder = try Folder()
        defer { folder.remove() }
        try await TestDatabase.with { database in
            try await Self.migrated(database, config: folder.config)
            let file = try folder.write("sources.csv", """
                slug,name,feed_url,category,language,max_content_length,language_detection\r
                one,"One, the first",https://one.example/rss,world,en,,\r
                two,Two,https://two.example/rss,podcasts,es,9000,off\r

                """)
            let first = try await Self.run(["--import-sources", file, "--config", folder.config], database)
            #expect(first.status == 0, "\(first.stderr)")
            #expect(first.stdout.contains("sources: 2 new, 0 updated, 0 unchanged"), "\(first.stdout)")
            #expect(first.stdout.contains("added: one, two"), "\(first.stdout)")
            let stamps = try await Self.updatedAt(database)
            let second = try await Self.run(["--import-sources", file, "--config", folder.config], database)
            #expect(second.status == 0, "\(second.stderr)")
            #expect(second.stdout.contains("sources: 0 new, 0 updated, 2 unchanged"), "\(second.stdout)")
            #expect(try await Self.updatedAt(database) == stamps)

            // A changed row is an update, named with its fields; the service reads language_detection.
            try (try String(contentsOfFile: file, encoding: .utf8)).replacingOccurrences(of: "9000,off", with: "8000,on")
                .write(toFile: file, atomically: true, encoding: .utf8)
            let third = try await Self.run(["--import-sources", file, "--config", folder.config], database)
            #expect(third.stdout.contains("sources: 0 new, 1 updated, 1 unchanged"), "\(third.stdout)")
            #expect(third.stdout.contains("updated: two (max_content_length, language_detection)"), "\(third.stdout)")
            let connection = try await database.connect()
            let record = try await ArticleStore(connection: connection).source(slug: "two")
            await connection.close()
            #expect(record?.languageDetection == true && record?.maxContentLength == 8000)
        }
    }

    static func updatedAt(_ database: TestDatabase) async throws -> [String] {
        let connection = try await database.connect(serviceRole: false)
        let rows = try await connection.query("SELECT slug, updated_at::text AS at FROM public.sources ORDER BY slug",
                                              label: "read updated_at").rows
        await connection.close()
        return rows.map { "\($0["slug"] ?? "") \($0["at"] ?? "")" }
    }

    @Test func aFeedReadersOPMLImports() async throws {
        let folder = try Folder()
        defer { folder.remove() }
        let opml = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Fixtures/feed-reader.opml").path
        try await TestDatabase.with { database in
            try await Self.migrated(database, config: folder.config)
            let withoutDefaults = try await Self.run(["--import-sources", opml, "--config", folder.config], database)
            #expect(withoutDefaults.status == 64)
            #expect(withoutDefaults.stderr.contains("feed-reader.opml:20: source 'example-news': no category: its folder "
                                                    + "'Reading list' names no known category"), "\(withoutDefaults.stderr)")
            #expect(withoutDefaults.stderr.contains("feed-reader.opml:9: source 'ars-technica': no language"),
                    "\(withoutDefaults.stderr)")

            let arguments = ["--import-sources", opml, "--config", folder.config, "--language", "en", "--category", "world"]
            let imported = try await Self.run(arguments, database)
            #expect(imported.status == 0, "\(imported.stderr)")
            #expect(imported.stdout.contains("feed-reader.opml: 5 sources (opml)"), "\(imported.stdout)")
            let stored = try await Self.storedSources(database)
            #expect(stored.map(\.slug) == ["ars-technica", "ciencia-hoje", "example-news", "gizmodo-co", "quanta-magazine"])
            #expect(stored.map(\.categorySlug) == ["technology", "science", "world", "technology", "science"])
            #expect(stored.map(\.name) == ["Ars Technica", "Ciência Hoje", "Example News", "Gizmodo & Co", "Quanta Magazine"])
            #expect(stored.allSatisfy { $0.language == "en" && $0.isActive == true && $0.fetchIntervalHours == 2 })

            let again = try await Self.run(arguments, database)
            #expect(again.stdout.contains("sources: 0 new, 0 updated, 5 unchanged"), "\(again.stdout)")
        }
    }

    /// Names and URLs each format must escape, every column set and unset, an inactive source and
    /// one with language detection off, beside the 136 shipped sources.
    static let awkward = header.replacingOccurrences(of: "active\n", with: "active\tmax_content_length\tlanguage_detection\n")
        + "amp\tA & B <C> \"D\", E\thttps://amp.example/rss?a=1&b=2\thttps://amp.example/\tworld\ten\t3\tfalse\t\t\n"
        + "unicode\tÜñíçødé ✓ 日本\thttps://unicode.example/feed\t\tvideos\tja\t168\t\t500\tfalse\n"
        + "spaces\t  spaced  \thttps://spaces.example/\t\tpodcasts\tpt\t1\ttrue\t200000\ttrue\n"

    @Test(arguments: ["opml", "tsv", "csv"])
    func exportThenImportRoundTrips(format: String) async throws {
        let folder = try Folder()
        defer { folder.remove() }
        try await TestDatabase.with { source in
            try await Self.migrated(source, config: try CommandLineTests.shippedConfig())
            let awkward = try folder.write("awkward.tsv", Self.awkward)
            let added = try await Self.run(["--import-sources", awkward, "--config", folder.config], source)
            #expect(added.stdout.contains("sources: 3 new"), "\(added.stderr)")
            let exported = try await Self.run(["--export-sources", "--format", format], source)
            #expect(exported.status == 0, "\(exported.stderr)")
            let file = try folder.write("all.\(format)", exported.stdout)
            let original = try await Self.storedSources(source)
            #expect(original.count == 139)

            try await TestDatabase.with { copy in
                try await Self.migrated(copy, config: folder.config)
                let imported = try await Self.run(["--import-sources", file, "--config", folder.config], copy)
                #expect(imported.status == 0, "\(imported.stderr)")
                #expect(imported.stdout.contains("sources: 139 new, 0 updated, 0 unchanged"), "\(imported.stdout)")
                #expect(try await Self.storedSources(copy) == original)
                let again = try await Self.run(["--export-sources", "--format", format], copy)
                #expect(again.stdout == exported.stdout)
            }
            // And back into the database it came from: nothing to do.
            let back = try await Self.run(["--import-sources", file, "--config", folder.config], source)
            #expect(back.stdout.contains("sources: 0 new, 0 updated, 139 unchanged"), "\(back.stdout)")
        }
    }

    /// A catalogue far larger than a config file, in one sync (the time is measured by hand, not here).
    @Test func aLargeGeneratedTSVImports() async throws {
        let folder = try Folder()
        defer { folder.remove() }
        let count = 20_000
        let categories = ["world", "technology", "business", "sports", "science"]
        var text = "slug\tname\tfeed_url\tcategory\tlanguage\tfetch_interval_hours\tactive\n"
        for index in 0..<count {
            text += "gen-\(index)\tGenerated \(index)\thttps://host\(index % 997).example/feeds/\(index).xml\t"
                + "\(categories[index % categories.count])\ten\t\(1 + index % 24)\t\(index % 7 == 0 ? "false" : "true")\n"
        }
        let file = try folder.write("large.tsv", text)
        try await TestDatabase.with { database in
            try await Self.migrated(database, config: folder.config)
            let first = try await Self.run(["--import-sources", file, "--config", folder.config], database)
            #expect(first.status == 0, "\(first.stderr)")
            #expect(first.stdout.contains("sources: \(count) new, 0 updated, 0 unchanged"), "\(first.stdout.prefix(300))")
            #expect(first.stdout.contains("and \(count - 20) more"))
            let stored = try await Self.storedSources(database)
            #expect(stored.count == count)
            #expect(stored.filter { $0.isActive == false }.count == (count + 6) / 7)
            let second = try await Self.run(["--import-sources", file, "--config", folder.config], database)
            #expect(second.stdout.contains("sources: 0 new, 0 updated, \(count) unchanged"), "\(second.stdout.prefix(300))")
        }
    }

    /// A file above the row limit is refused before it is parsed, naming the limit and what to do,
    /// and nothing is written (a million rows once took 1.77 GB and then the statement timeout).
    @Test func aFileAboveTheRowLimitIsRefusedBeforeAnyWork() async throws {
        let folder = try Folder()
        defer { folder.remove() }
        var text = "slug\tname\tfeed_url\tcategory\tlanguage\n"
        for index in 0...100_000 { text += "g-\(index)\tG\thttps://g\(index).example/rss\tworld\ten\n" }
        let file = try folder.write("huge.tsv", text)
        try await TestDatabase.with { database in
            try await Self.migrated(database, config: folder.config)
            let refused = try await Self.run(["--import-sources", file, "--config", folder.config], database)
            #expect(refused.status == 65)
            #expect(refused.stderr.contains("huge.tsv: 100,001 rows, more than the 100,000 one import takes"), "\(refused.stderr)")
            #expect(refused.stderr.contains("split it into files of at most 100,000 rows, each with the header row"))
            #expect(try await Self.storedSources(database).isEmpty)
        }
    }
}
