import ArticleStore
import Foundation
import PulseModel
import Testing

@Suite(.tags(.integration))
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
}
