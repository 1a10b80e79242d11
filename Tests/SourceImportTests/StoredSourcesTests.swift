import FeedParser
import ArticleStore
import Postgres
import PulseConfig
import PulseModel
@testable import SourceImport
import TestSupport
import Testing

/// Exports of what a real database holds, and imports checked against it.
@Suite(.tags(.integration), .needsDatabase)
struct StoredSourcesTests {
    /// A migrated database holding `sources` (written by the sync `--migrate` uses).
    static func withStored<T: Sendable>(_ sources: [SourceDefinition],
                                        _ body: @Sendable (TestDatabase, ArticleStore) async throws -> T) async throws -> T {
        try await TestDatabase.with { database in
            let connection = try await database.migratedConnection()
            let store = ArticleStore(connection: connection)
            _ = try await store.synchronize(categories: ExportTests.categories, sources: sources, deactivateUnlisted: false)
            do {
                let value = try await body(database, store)
                await connection.close()
                return value
            } catch {
                await connection.close()
                throw error
            }
        }
    }

    /// Names that start as formulas, stored, exported as CSV and TSV: no cell starts a formula, and
    /// the file imported back into the database changes nothing.
    @Test(arguments: [SourceFileFormat.csv, .tsv])
    func formulaNamesExportAsTextAndComeBackUnchanged(format: SourceFileFormat) async throws {
        let risky = SpreadsheetCellTests.risky.filter { !$0.name.contains("\t") && !$0.name.contains("\r") }
        try await Self.withStored(risky) { _, store in
            let stored = try await store.storedSources()
            #expect(Set(stored.map(\.name)) == Set(risky.map(\.name)))
            let text = try SourceExport.render(stored, categories: try await store.storedCategories(), as: format)
            let bytes = Array(text.utf8)[...]
            let records = format == .tsv ? DelimitedText.tsvRecords(bytes) : DelimitedText.csvRecords(bytes).records
            let starts = records.flatMap(\.fields).compactMap { $0.value.unicodeScalars.first }
            #expect(!starts.contains { ["=", "+", "-", "@"].contains($0) }, "\(text)")

            let again = try sources(text, as: format, settings: settings(stored: stored))
            let report = try await store.synchronize(categories: [], sources: again, deactivateUnlisted: false)
            #expect(report.sourcesUnchanged == risky.count && report.sourcesUpdated.isEmpty && report.sourcesInserted.isEmpty)
        }
    }

    /// A tab and a line break written into a name by hand no longer fail the TSV export of every row.
    @Test func aNameWithControlCharactersWrittenByHandStillExports() async throws {
        try await Self.withStored(Array(ExportTests.sample.prefix(2))) { database, store in
            let admin = try await database.connect(serviceRole: false)
            let name = "two\tcolumns\nand a line"
            _ = try await admin.query("UPDATE public.sources SET name = $1 WHERE slug = 'alpha'", [name], label: "by hand")
            await admin.close()
            let stored = try await store.storedSources()
            #expect(stored.first?.name == name)
            let text = try SourceExport.render(stored, categories: try await store.storedCategories(), as: .tsv)
            let lines = text.split(separator: "\n")
            #expect(lines.count == 3 && lines[1].hasPrefix("alpha\ttwo\\tcolumns\\nand a line\t"), "\(text)")
            #expect(lines[2].hasPrefix("beta\tBéta ünïcode ✓\t"))
            #expect(SourceFile.read(Array(text.utf8), name: "x", format: .tsv, opml: OPMLParser.parse).rows.map { $0.row.value("name") }
                    == stored.map(\.name))
        }
    }

    /// A stored feed written another way (host case, default port, fragment) under another slug is
    /// refused with its line; nothing is written.
    @Test func aSpellingOfAStoredFeedIsRefused() async throws {
        let kept = SameFeedTests.stored("kept", "https://news.example.org/feed")
        try await Self.withStored([kept]) { _, store in
            let stored = try await store.storedSources()
            let text = tsv("fine\tFine\thttps://fine.example/rss\t\tworld\ten",
                           "other\tOther\thttps://NEWS.example.org:443/feed#latest\t\tworld\ten")
            #expect(problems(text, as: .tsv, settings: settings(stored: stored))
                    == ["3: feed_url is already used by source 'kept' in the database; each feed must be listed once"])
            #expect(try await store.storedSources().map(\.slug) == ["kept"])
        }
    }
}
