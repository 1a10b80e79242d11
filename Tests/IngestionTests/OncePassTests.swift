import ArticleStore
import Foundation
@testable import HTTPFetcher
import Ingestion
import LoopbackHTTPServer
import Logging
import Postgres
import PulseModel
import TestSupport
import Testing

/// `--once` end to end: 50 feeds on a loopback server, a real PostgreSQL, then a second pass that
/// sees 304s and inserts nothing.
@Suite(.tags(.integration), .needsDatabase)
struct OncePassTests {
    static let feedCount = 50

    /// `count` sources `feed-01`... whose feeds `server` (`FixtureFeeds.feedServer`) serves.
    static func sources(_ count: Int, on server: LoopbackHTTPServer) -> [SourceDefinition] {
        (1...count).map { number in
            var source = Seed.source(String(format: "feed-%02d", number))
            source.feedURL = "\(server.base)/feeds/\(number).xml"
            return source
        }
    }

    @Test func twoPassesOverFiftyFeeds() async throws {
        let now = Date()
        let server = try FixtureFeeds.feedServer(now: now)
        defer { server.stop() }
        try await TestDatabase.with { database in
            let definitions = Self.sources(Self.feedCount, on: server)
            let (store, _) = try await Seed.store(database, sources: definitions)
            let fetcher = FixtureFeeds.fetcher()
            defer { fetcher.shutdown() }
            let pass = IngestPass(store: store, fetcher: fetcher, retentionDays: 7, concurrency: 8,
                                  logger: TestDatabase.logger)

            let first = try await pass.run(sources: try await store.dueSources(at: now), now: now)
            #expect(first.outcomes.count == 50)
            #expect(Set(first.outcomes.filter(\.failed).map(\.slug)) == ["feed-07", "feed-13"])
            let healthy = Self.feedCount - 2
            #expect(first.inserted == healthy * (FixtureFeeds.itemsPerFeed - 1))
            #expect(first.outcomes.filter { !$0.failed }.allSatisfy { $0.tooOld == 1 && $0.itemsSeen == FixtureFeeds.itemsPerFeed })

            let db = store.connection
            let counts = try await db.query("""
                SELECT count(*) AS rows, count(DISTINCT source_id) AS sources,
                       count(*) FILTER (WHERE url LIKE '%?a=1&utm=x') AS canonical,
                       count(*) FILTER (WHERE title LIKE '% & more') AS decoded,
                       count(*) FILTER (WHERE summary LIKE 'Summary of story %.') AS summaries
                FROM public.articles
                """, label: "articles").rows.first
            #expect(counts?.int("rows") == healthy * 5 && counts?.int("sources") == healthy)
            #expect(counts?.int("canonical") == healthy * 5)
            #expect(counts?.int("decoded") == healthy * 5 && counts?.int("summaries") == healthy * 5)

            let state = try await db.query("""
                SELECT slug, etag, consecutive_failures, last_fetched_at IS NOT NULL AS fetched
                FROM public.sources ORDER BY slug
                """, label: "state").rows
            for row in state {
                let failing = row["slug"] == "feed-07" || row["slug"] == "feed-13"
                #expect(row.int("consecutive_failures") == (failing ? 1 : 0), "\(row["slug"]!)")
                #expect((row["etag"] != nil) == !failing, "\(row["slug"]!)")
                #expect(row.bool("fetched") == !failing, "\(row["slug"]!)")
            }
            let log = try await db.query("""
                SELECT status, sources_processed, articles_inserted, jsonb_array_length(errors) AS errors,
                       completed_at IS NOT NULL AS closed FROM public.fetch_logs
                """, label: "fetch log").rows
            #expect(log.count == 1)
            #expect(log.first?["status"] == "partial_failure" && log.first?.int("errors") == 2)
            #expect(log.first?.int("sources_processed") == 50 && log.first?.int("articles_inserted") == healthy * 5)
            #expect(log.first?.bool("closed") == true)

            // Second pass, once the interval has elapsed: 304 everywhere that worked, nothing new.
            let later = now.addingTimeInterval(3 * 3600)
            let second = try await pass.run(sources: try await store.dueSources(at: later), now: later)
            #expect(second.outcomes.count == 50)
            #expect(second.outcomes.filter { $0.result == .notModified }.count == healthy)
            #expect(second.inserted == 0)
            #expect(try await db.query("SELECT count(*) FROM public.articles", label: "count").rows.first?.int("count")
                    == healthy * 5)
            #expect(server.hits("/feeds/1.xml") == 2)
            await db.close()
        }
    }

    @Test func stopRequestClosesTheFetchLog() async throws {
        let now = Date()
        let server = try FixtureFeeds.feedServer(now: now)
        defer { server.stop() }
        try await TestDatabase.with { database in
            let definitions = Self.sources(20, on: server)
            let (store, _) = try await Seed.store(database, sources: definitions)
            let fetcher = FixtureFeeds.fetcher()
            defer { fetcher.shutdown() }
            let pass = IngestPass(store: store, fetcher: fetcher, concurrency: 2, logger: TestDatabase.logger)
            let stop = StopSignal()
            let summary = try await pass.run(sources: try await store.dueSources(at: now), now: now, stop: stop) { _ in
                stop.stop()
            }
            #expect(summary.interrupted)
            #expect(summary.outcomes.count < 20 && summary.outcomes.count >= 1)
            let log = try await store.connection.query(
                "SELECT status, completed_at IS NOT NULL AS closed, sources_processed FROM public.fetch_logs",
                label: "log").rows.first
            #expect(log?.bool("closed") == true)
            #expect(log?.int("sources_processed") == summary.outcomes.count)
            await store.connection.close()
        }
    }
}
