import ArticleStore
import Foundation
import Postgres
import PulseModel
import TestSupport
import Testing

@Suite(.tags(.integration), .needsDatabase)
struct PruneTests {
    /// Ages in days of the seeded rows; each has an image, a thumbnail and content.
    static let ages: [Double] = [0.5, 1, 1.9, 2.1, 2.5, 2.9, 3.1, 4, 6.9, 7.1, 8, 30]

    @Test func pruneCountsAreExactAndYoungerRowsUntouched() async throws {
        try await TestDatabase.with { database in
            let (store, sources) = try await Seed.store(database, sources: [Seed.source("s")])
            let db = store.connection
            let now = Date()
            let candidates = Self.ages.enumerated().map { index, _ in
                ArticleCandidate(title: "Row \(index)", link: "https://e.example/\(index)", content: "Body \(index)",
                                 imageURL: "https://e.example/\(index).jpg", thumbnailURL: "https://e.example/t\(index).jpg")
            }
            _ = try await store.insertArticles(candidates, source: sources["s"]!)
            for (index, age) in Self.ages.enumerated() {
                try await db.query("UPDATE public.articles SET created_at = $1::timestamptz WHERE title = $2",
                                   [now.addingTimeInterval(-age * 86_400), "Row \(index)"], label: "age")
            }
            for age in [1.0, 6.0, 8.0, 10.0] {
                try await db.query("INSERT INTO public.fetch_logs (started_at, status) VALUES ($1::timestamptz, 'completed')",
                                   [now.addingTimeInterval(-age * 86_400)], label: "log")
            }
            let windows = RetentionWindows()
            let dry = try await store.prune(windows, now: now, dryRun: true)
            // > 7 d: 7.1, 8, 30; images of 3.1, 4, 6.9; bodies of 2.1 ... 6.9; logs of 8 and 10 days.
            let expected = PruneCounts(articles: 3, images: 3, content: 6, logs: 2)
            #expect(dry == expected)
            #expect(try await db.query("SELECT count(*) FROM public.articles", label: "n").rows.first?.int("count") == 12)

            // A small batch size exercises the batching loop; a writer on its own session (as a
            // running daemon would be) inserts fresh rows in small batches meanwhile.
            let writerStore = ArticleStore(connection: try await database.connect())
            let source = sources["s"]!
            async let writer: Int = {
                var inserted = 0
                for batch in 0..<10 {
                    inserted += try await writerStore.insertArticles((0..<5).map {
                        let number = batch * 5 + $0
                        return ArticleCandidate(title: "Fresh \(number)", link: "https://fresh.example/\(number)",
                                                content: "c", imageURL: "https://fresh.example/\(number).jpg")
                    }, source: source).inserted
                }
                return inserted
            }()
            let counts = try await store.prune(windows, now: now, batchSize: 2)
            #expect(try await writer == 50)
            await writerStore.connection.close()
            #expect(counts == expected)

            let rows = try await db.query("""
                SELECT title, image_url IS NOT NULL AS image, thumbnail_url IS NOT NULL AS thumb,
                       content IS NOT NULL AS body FROM public.articles WHERE title LIKE 'Row %'
                """, label: "rows").rows
            var state: [String: (Bool, Bool, Bool)] = [:]
            for row in rows { state[row["title"]!] = (row.bool("image")!, row.bool("thumb")!, row.bool("body")!) }
            for (index, age) in Self.ages.enumerated() {
                let title = "Row \(index)"
                if age > 7 { #expect(state[title] == nil, "\(title) should be deleted"); continue }
                let kept = try #require(state[title])
                #expect(kept.0 == (age <= 3) && kept.1 == (age <= 3), "\(title) image")
                #expect(kept.2 == (age <= 2), "\(title) content")
            }
            let fresh = try await db.query("""
                SELECT count(*) FILTER (WHERE image_url IS NOT NULL AND content IS NOT NULL) AS intact
                FROM public.articles WHERE title LIKE 'Fresh %'
                """, label: "fresh").rows.first?.int("intact")
            #expect(fresh == 50)
            #expect(try await db.query("SELECT count(*) FROM public.fetch_logs", label: "logs").rows.first?.int("count") == 2)
            #expect(try await store.prune(windows, now: now) == PruneCounts())
            await db.close()
        }
    }
}

extension PruneCounts {
    init(articles: Int, images: Int, content: Int, logs: Int) {
        self.init()
        articlesDeleted = articles
        imagesCleared = images
        contentCleared = content
        fetchLogsDeleted = logs
    }
}
