import ArticleStore
import Foundation
import Postgres
import PulseModel
import TestSupport
import Testing

@Suite(.tags(.integration), .needsDatabase)
struct SourceSyncTests {
    @Test func syncInsertsUpdatesAndNeverDeletes() async throws {
        try await TestDatabase.with { database in
            let (store, _) = try await Seed.store(database, sources: [])
            let a = Seed.source("a"), b = Seed.source("b", category: "science", language: "es")
            var report = try await store.synchronize(categories: Seed.categories, sources: [a, b], deactivateUnlisted: false)
            #expect(report.sourcesInserted == ["a", "b"] && report.sourcesUpdated.isEmpty)
            #expect(report.categoriesInserted == 0 && report.categoriesUpdated == 0)

            var renamed = a
            renamed.name = "Renamed"
            renamed.fetchIntervalHours = 6
            report = try await store.synchronize(categories: Seed.categories, sources: [renamed, b], deactivateUnlisted: false)
            #expect(report.sourcesUpdated == [.init(slug: "a", fields: ["name", "fetch_interval_hours"])])
            #expect(report.sourcesUnchanged == 1 && report.sourcesInserted.isEmpty)
            let stored = try #require(try await store.source(slug: "a"))
            #expect(stored.name == "Renamed" && stored.fetchIntervalHours == 6)

            // Removed from the YAML: left alone by default...
            report = try await store.synchronize(categories: Seed.categories, sources: [renamed], deactivateUnlisted: false)
            #expect(report.sourcesUnlisted == 1 && report.sourcesDeactivated.isEmpty)
            #expect(try await store.dueSources().map(\.slug).contains("b"))
            // ...deactivated with prune_unlisted, and never deleted.
            report = try await store.synchronize(categories: Seed.categories, sources: [renamed], deactivateUnlisted: true)
            #expect(report.sourcesDeactivated == ["b"])
            #expect(try await store.source(slug: "b") != nil)
            #expect(!(try await store.dueSources().map(\.slug).contains("b")))

            var categories = Seed.categories
            categories[0].name = "World News"
            categories.append(CategoryDefinition(slug: "culture", name: "Culture", displayOrder: 11))
            report = try await store.synchronize(categories: categories, sources: [renamed], deactivateUnlisted: false)
            #expect(report.categoriesInserted == 1 && report.categoriesUpdated == 1)
            await store.connection.close()
        }
    }

    /// Operators (and upstream's migration 023) turn dead sources off in the database; a sync
    /// whose file says nothing about `active:` must leave them off, and say so.
    @Test func isActiveChangesOnlyWhereTheFileSaysSo() async throws {
        try await TestDatabase.with { database in
            let (store, _) = try await Seed.store(database, sources: [])
            let quiet = Seed.source("quiet"), other = Seed.source("other")
            var report = try await store.synchronize(categories: Seed.categories, sources: [quiet, other],
                                                     deactivateUnlisted: false)
            #expect(report.sourcesInserted == ["quiet", "other"])
            #expect(try await store.source(slug: "quiet")?.isActive == true, "new rows start active")

            try await store.connection.query("UPDATE public.sources SET is_active = false WHERE slug = 'quiet'",
                                             label: "operator turns it off")
            for _ in 1...2 {
                report = try await store.synchronize(categories: Seed.categories, sources: [quiet, other],
                                                     deactivateUnlisted: false)
                #expect(report.sourcesUpdated.isEmpty && report.sourcesUnchanged == 2)
                #expect(report.sourcesLeftInactive == ["quiet"])
                #expect(try await store.source(slug: "quiet")?.isActive == false)
            }

            // An explicit `active:` wins both ways, and the report names the field.
            report = try await store.synchronize(
                categories: Seed.categories, sources: [Seed.source("quiet", active: true), Seed.source("other", active: false)],
                deactivateUnlisted: false)
            #expect(report.sourcesUpdated == [.init(slug: "quiet", fields: ["is_active"]),
                                              .init(slug: "other", fields: ["is_active"])])
            #expect(report.sourcesDeactivatedByFile == ["other"] && report.sourcesLeftInactive.isEmpty)
            #expect(try await store.source(slug: "quiet")?.isActive == true)
            #expect(try await store.source(slug: "other")?.isActive == false)
            await store.connection.close()
        }
    }

    /// The whole file is compared, inserted and updated in three statements: the report still
    /// lists every source in file order, whichever statement handled it, and every column the
    /// file owns (NULLs included) reaches the row.
    @Test func aLargeFileIsSyncedInFileOrderWithEveryColumn() async throws {
        try await TestDatabase.with { database in
            let (store, _) = try await Seed.store(database, sources: [])
            let slugs = (0..<300).map { "s\(String(format: "%03d", (7 * $0) % 300))" }   // not sorted
            let first = slugs.map { Seed.source($0, maxContentLength: $0.hasSuffix("7") ? 5_000 : nil) }
            var report = try await store.synchronize(categories: Seed.categories, sources: first, deactivateUnlisted: false)
            #expect(report.sourcesInserted == slugs && report.sourcesUnchanged == 0)

            // Every 10th renamed, every 25th moved and opened to no website, two new ones between.
            var second = first
            for index in second.indices {
                if index % 10 == 0 { second[index].name += " (renamed)" }
                if index % 25 == 0 {
                    second[index].categorySlug = "science"
                    second[index].websiteURL = nil
                    second[index].maxContentLength = 1_234
                }
            }
            second.insert(Seed.source("new-a", language: "pt"), at: 5)
            second.append(Seed.source("new-b", active: false))
            report = try await store.synchronize(categories: Seed.categories, sources: second, deactivateUnlisted: false)
            #expect(report.sourcesInserted == ["new-a", "new-b"])
            let expectedChanges: [SyncReport.SourceChange] = first.indices.compactMap { index in
                var fields: [String] = []
                if index % 10 == 0 { fields.append("name") }
                if index % 25 == 0 { fields += ["website_url", "category", "max_content_length"] }
                return fields.isEmpty ? nil : .init(slug: slugs[index], fields: fields)
            }
            #expect(report.sourcesUpdated == expectedChanges)
            #expect(report.sourcesUnchanged == 300 - expectedChanges.count)

            let categories = Dictionary(uniqueKeysWithValues: try await store.storedSources().map { ($0.slug, $0.categorySlug) })
            let moved = try #require(try await store.source(slug: slugs[50]))
            #expect(moved.name == "Source \(slugs[50]) (renamed)" && categories[slugs[50]] == "science")
            #expect(moved.maxContentLength == 1_234)
            let website = try await store.connection.query(
                "SELECT website_url FROM public.sources WHERE slug = $1", [slugs[50]], label: "website").rows.first
            #expect(website != nil && website?["website_url"] == nil)
            let untouched = try #require(try await store.source(slug: slugs[7]))
            #expect(untouched.name == "Source \(slugs[7])" && categories[slugs[7]] == "world")
            #expect(try await store.source(slug: "new-a")?.language == "pt")
            #expect(try await store.source(slug: "new-b")?.isActive == false)

            // A file listing a slug twice is refused by name, and nothing of it is written.
            var twice = second
            twice[0].name = "Changed"
            twice.append(twice[3])
            await #expect(throws: PostgresError.self) {
                try await store.synchronize(categories: Seed.categories, sources: twice, deactivateUnlisted: false)
            }
            do {
                _ = try await store.synchronize(categories: Seed.categories, sources: twice, deactivateUnlisted: false)
            } catch {
                #expect("\(error)".contains("'\(twice[3].slug)' is listed twice"))
            }
            #expect(try await store.source(slug: slugs[0])?.name == "Source \(slugs[0]) (renamed)")
            await store.connection.close()
        }
    }
}
