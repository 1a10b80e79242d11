import ArticleStore
import Foundation
import Postgres
import TestSupport
import Testing

@Suite(.tags(.integration), .needsDatabase)
struct FetchStateTests {
    @Test func circuitOpensAtFiveFailuresAndDoublesToADayCap() async throws {
        try await TestDatabase.with { database in
            let (store, sources) = try await Seed.store(database, sources: [Seed.source("flaky")])
            let id = sources["flaky"]!.id
            let now = Date(timeIntervalSince1970: 1_790_000_000)
            var windows: [Double?] = []
            for _ in 1...11 {
                let state = try await store.recordFetchFailure(sourceID: id, at: now)
                windows.append(state.circuitOpenUntil.map { ($0.timeIntervalSince(now) / 3600).rounded() })
            }
            #expect(windows == [nil, nil, nil, nil, 1, 2, 4, 8, 16, 24, 24])
            #expect(try await store.dueSources(at: now).isEmpty)
            #expect(try await counts(store, at: now) == [0, 1])
            #expect(try await store.dueSources(at: now.addingTimeInterval(25 * 3600)).map(\.slug) == ["flaky"])
            #expect(try await counts(store, at: now.addingTimeInterval(25 * 3600)) == [1, 0])

            try await store.recordFetchSuccess(sourceID: id, etag: "\"v1\"", lastModified: nil, notModified: false, at: now)
            let reset = try #require(try await store.source(slug: "flaky"))
            #expect(reset.consecutiveFailures == 0 && reset.circuitOpenUntil == nil)
            #expect(reset.lastFetchedAt == now)
            await store.connection.close()
        }
    }

    @Test func validatorsFollowTheContract() async throws {
        try await TestDatabase.with { database in
            let (store, sources) = try await Seed.store(database, sources: [Seed.source("v")])
            let id = sources["v"]!.id
            try await store.recordFetchSuccess(sourceID: id, etag: "\"e1\"", lastModified: "Mon, 02 Nov 2026 10:00:00 GMT",
                                               notModified: false)
            // A 304 without validators keeps the old ones.
            try await store.recordFetchSuccess(sourceID: id, etag: nil, lastModified: nil, notModified: true)
            var record = try #require(try await store.source(slug: "v"))
            #expect(record.etag == "\"e1\"" && record.lastModified == "Mon, 02 Nov 2026 10:00:00 GMT")
            // Failures keep them too.
            try await store.recordFetchFailure(sourceID: id)
            record = try #require(try await store.source(slug: "v"))
            #expect(record.etag == "\"e1\"" && record.consecutiveFailures == 1)
            // A 304 with a new ETag stores it; a 200 without validators clears them.
            try await store.recordFetchSuccess(sourceID: id, etag: "\"e2\"", lastModified: nil, notModified: true)
            record = try #require(try await store.source(slug: "v"))
            #expect(record.etag == "\"e2\"" && record.lastModified == "Mon, 02 Nov 2026 10:00:00 GMT")
            try await store.recordFetchSuccess(sourceID: id, etag: nil, lastModified: nil, notModified: false)
            record = try #require(try await store.source(slug: "v"))
            #expect(record.etag == nil && record.lastModified == nil)
            await store.connection.close()
        }
    }

    @Test func dueSourcesRespectIntervalActivityAndSlugFilter() async throws {
        try await TestDatabase.with { database in
            let (store, sources) = try await Seed.store(database, sources: [
                Seed.source("a"), Seed.source("b"), Seed.source("off", active: false),
            ])
            let now = Date(timeIntervalSince1970: 1_790_000_000)
            #expect(try await store.dueSources(at: now).map(\.slug) == ["a", "b"])
            try await store.recordFetchSuccess(sourceID: sources["a"]!.id, etag: nil, lastModified: nil,
                                               notModified: false, at: now)
            #expect(try await store.dueSources(at: now.addingTimeInterval(3600)).map(\.slug) == ["b"])
            // Inactive sources are never counted; a claimed (leased) source is in flight, not waiting.
            #expect(try await counts(store, at: now.addingTimeInterval(3600)) == [1, 0])
            _ = try await store.claimDueSources(workerID: "w", limit: 1, lease: .seconds(60), at: now.addingTimeInterval(3600))
            #expect(try await counts(store, at: now.addingTimeInterval(3600)) == [0, 0])
            #expect(try await store.dueSources(at: now.addingTimeInterval(2 * 3600)).map(\.slug) == ["b", "a"])
            #expect(try await store.dueSources(at: now, slugs: ["b", "off"]).map(\.slug) == ["b"])
            await store.connection.close()
        }
    }

    @Test func fetchLogRowOpensAndCloses() async throws {
        try await TestDatabase.with { database in
            let (store, _) = try await Seed.store(database, sources: [])
            let id = try await store.openFetchLog()
            var running = try await store.connection.query("SELECT status FROM public.fetch_logs WHERE id = $1::uuid",
                                                            [id], label: "log").rows.first
            #expect(running?["status"] == "running")
            var summary = FetchLogSummary()
            summary.sourcesProcessed = 3
            summary.sourcesFailed = 1
            summary.articlesFetched = 40
            summary.articlesInserted = 12
            summary.articlesSkipped = 28
            summary.errors = ["bad-feed: HTTP 500 \"quoted\""]
            try await store.closeFetchLog(id: id, summary: summary)
            running = try await store.connection.query("""
                SELECT status, sources_processed, articles_inserted, errors->>0 AS first_error,
                       completed_at IS NOT NULL AS done FROM public.fetch_logs WHERE id = $1::uuid
                """, [id], label: "log").rows.first
            #expect(running?["status"] == "partial_failure")
            #expect(running?.int("sources_processed") == 3 && running?.int("articles_inserted") == 12)
            #expect(running?["first_error"] == "bad-feed: HTTP 500 \"quoted\"")
            #expect(running?.bool("done") == true)
            summary.sourcesFailed = 3
            #expect(summary.status == "failed")
            summary.sourcesFailed = 0
            #expect(summary.status == "completed")
            await store.connection.close()
        }
    }

    /// A pass whose log could not be closed (the database went away mid-pass) leaves no row
    /// `running` forever: the next pass's open writes the kept summary first.
    @Test func aLogThatCouldNotBeClosedIsClosedByTheNextPass() async throws {
        try await TestDatabase.with { database in
            let (store, _) = try await Seed.store(database, sources: [])
            let first = try await store.openFetchLog()
            let owner = try await database.connect(serviceRole: false)
            try await owner.query("""
                CREATE FUNCTION public.refuse_for_test() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN RAISE EXCEPTION 'refused for the test'; END $$
                """, label: "refusing function")
            try await owner.query("""
                CREATE TRIGGER refuse BEFORE UPDATE ON public.fetch_logs FOR EACH ROW EXECUTE FUNCTION public.refuse_for_test();
                """, label: "refuse updates")
            var summary = FetchLogSummary()
            summary.sourcesProcessed = 2
            await #expect(throws: (any Error).self) { try await store.closeFetchLog(id: first, summary: summary) }
            await #expect(throws: (any Error).self) { _ = try await store.openFetchLog() }
            try await owner.query("DROP TRIGGER refuse ON public.fetch_logs", label: "allow updates")
            await owner.close()
            let second = try await store.openFetchLog()
            let rows = try await store.connection.query(
                "SELECT id::text, status, sources_processed FROM public.fetch_logs ORDER BY started_at, status",
                label: "logs").rows
            #expect(rows.count == 2, "a refused open must not leave a row: \(rows)")
            #expect(rows.first { $0["id"] == first }?["status"] == "completed")
            #expect(rows.first { $0["id"] == first }?.int("sources_processed") == 2)
            #expect(rows.first { $0["id"] == second }?["status"] == "running")
            await store.connection.close()
        }
    }
}

/// The fleet gauges at `now` as [due, circuit open].
private func counts(_ store: ArticleStore, at now: Date) async throws -> [Int] {
    let counts = try await store.computeFleetGauges(at: now)
    return [counts.due, counts.circuitOpen]
}
