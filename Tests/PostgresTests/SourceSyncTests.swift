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
            #expect(report.sourcesInserted == 2 && report.sourcesUpdated == 0)
            #expect(report.categoriesInserted == 0 && report.categoriesUpdated == 0)

            var renamed = a
            renamed.name = "Renamed"
            renamed.fetchIntervalHours = 6
            report = try await store.synchronize(categories: Seed.categories, sources: [renamed, b], deactivateUnlisted: false)
            #expect(report.sourcesUpdated == 1 && report.sourcesUnchanged == 1 && report.sourcesInserted == 0)
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
}
