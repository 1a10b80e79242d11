import ArticleStore
import Foundation
import Postgres
import TestSupport
import Testing

/// The fleet gauges (migration 15): computed by one session per interval and read by the others
/// with their age; totals kept by triggers; the statements a daemon runs at start and stop read
/// only its own rows through an index.
@Suite(.tags(.integration), .needsDatabase)
struct FleetGaugesTests {
    @Test func oneDaemonComputesTheOthersReadWithTheirAge() async throws {
        try await TestDatabase.with { database in
            let (first, sources) = try await Seed.store(database, sources: [
                Seed.source("a"), Seed.source("b"), Seed.source("c"), Seed.source("off", active: false),
            ])
            let second = ArticleStore(connection: try await database.connect())
            for _ in 1...5 { _ = try await first.recordFetchFailure(sourceID: sources["b"]!.id) }
            _ = try await first.recordFetchFailure(sourceID: sources["c"]!.id)
            try await first.recordFetchSuccess(sourceID: sources["a"]!.id, etag: nil, lastModified: nil, notModified: false,
                                               schedule: NextFetch(dueAt: Date().addingTimeInterval(3600), workerID: "w1"))

            let computed = try #require(try await first.fleetGauges(workerID: "daemon-1", interval: .seconds(15)))
            #expect(computed.computedHere && computed.computedBy == "daemon-1")
            // a is scheduled an hour ahead, b's circuit is open, c failed once and is due again.
            #expect(computed.gauges == FleetGauges(sources: 4, active: 3, due: 1, circuitOpen: 1, failing: 2,
                                                   estimated: false))

            let read = try #require(try await second.fleetGauges(workerID: "daemon-2", interval: .seconds(15)))
            #expect(!read.computedHere, "fresh figures are read, not computed again")
            #expect(read.computedBy == "daemon-1" && read.gauges == computed.gauges)
            #expect(read.computedAt == computed.computedAt)
            #expect(read.age >= .zero && read.age < .seconds(15))

            // Twenty seconds old: the next reader computes them.
            let admin = try await database.connect(serviceRole: false)
            try await admin.query("UPDATE public.fleet_gauges SET computed_at = now() - interval '20 seconds'",
                                  label: "age the figures")
            let stale = try #require(try await second.fleetGauges(workerID: "daemon-2", interval: .seconds(15)))
            #expect(stale.computedHere && stale.computedBy == "daemon-2" && stale.age < .seconds(15))

            await admin.close()
            await first.connection.close()
            await second.connection.close()
        }
    }

    /// While another session holds the lock (it is computing), a reader takes the stored figures
    /// as they are, however old, and says how old; once the lock is gone, the next computes.
    @Test func aReaderThatLosesTheLockReadsTheStoredFigures() async throws {
        try await TestDatabase.with { database in
            let (store, _) = try await Seed.store(database, sources: [Seed.source("a")])
            _ = try await store.fleetGauges(workerID: "daemon-1", interval: .seconds(15))
            let admin = try await database.connect(serviceRole: false)
            try await admin.query("UPDATE public.fleet_gauges SET computed_at = now() - interval '40 seconds'",
                                  label: "age the figures")
            let other = ArticleStore(connection: try await database.connect())
            let holder = try await database.connect(serviceRole: false)
            // Held by a transaction of another session, as a computing daemon holds it.
            try await holder.runOutsideTransaction("BEGIN", label: "begin")
            try await holder.query("SELECT pg_advisory_xact_lock($1)", [ArticleStore.gaugesLockKey], label: "lock")
            let read = try #require(try await other.fleetGauges(workerID: "daemon-2", interval: .seconds(15)))
            #expect(!read.computedHere && read.computedBy == "daemon-1")
            #expect(read.age >= .seconds(40), "\(read.age)")
            try await holder.runOutsideTransaction("ROLLBACK", label: "end")
            let after = try #require(try await other.fleetGauges(workerID: "daemon-2", interval: .seconds(15)))
            #expect(after.computedHere && after.computedBy == "daemon-2")
            await holder.close()
            await admin.close()
            await other.connection.close()
            await store.connection.close()
        }
    }

    @Test func totalsFollowInsertsActivityAndDeletes() async throws {
        try await TestDatabase.with { database in
            let (store, _) = try await Seed.store(database, sources: [Seed.source("a"), Seed.source("b")])
            let admin = try await database.connect(serviceRole: false)
            func totals() async throws -> [Int] {
                let row = try await admin.query("SELECT sources, active FROM public.source_totals", label: "totals").rows.first
                return [row?.int("sources") ?? -1, row?.int("active") ?? -1]
            }
            #expect(try await totals() == [2, 2])
            try await admin.query("""
                INSERT INTO public.sources (name, slug, feed_url, is_active)
                SELECT 'x' || i, 'x-' || i, 'https://example.com/' || i, i % 2 = 0 FROM generate_series(1, 10) i
                """, label: "import")
            #expect(try await totals() == [12, 7])
            try await admin.query("UPDATE public.sources SET is_active = false WHERE slug IN ('a', 'x-1')", label: "off")
            try await admin.query("UPDATE public.sources SET is_active = NULL WHERE slug = 'x-2'", label: "null")
            try await admin.query("UPDATE public.sources SET consecutive_failures = 1", label: "unrelated")
            #expect(try await totals() == [12, 5])
            try await admin.query("DELETE FROM public.sources WHERE slug LIKE 'x-%'", label: "delete")
            #expect(try await totals() == [2, 1])
            let sync = try await store.synchronize(categories: Seed.categories, sources: [Seed.source("b")],
                                                   deactivateUnlisted: false)
            #expect(sync.sourcesUnlisted == 1)
            await admin.close()
            await store.connection.close()
        }
    }

    /// Above the exact-count ceiling the figure is estimated from a sample; with every source due
    /// the sample's share is 1, so the estimate is exact.
    @Test func aBacklogAboveTheCeilingIsEstimated() async throws {
        try await TestDatabase.with { database in
            let (store, _) = try await Seed.store(database, sources: [])
            let admin = try await database.connect(serviceRole: false)
            let count = ArticleStore.exactCountCeiling + 5_000
            try await admin.query("""
                INSERT INTO public.sources (name, slug, feed_url)
                SELECT 'x' || i, 'x-' || i, 'https://example.com/' || i FROM generate_series(1, $1) i
                """, [count], label: "import")
            let gauges = try await store.computeFleetGauges()
            #expect(gauges == FleetGauges(sources: count, active: count, due: count, circuitOpen: 0, failing: 0,
                                          estimated: true))
            await admin.close()
            await store.connection.close()
        }
    }

    /// With enough rows for the planner to prefer an index, the lease release and renewal read
    /// `idx_sources_claimed_by`, the unlisted count the slug index, the gauges their partial
    /// indexes: none scans `sources`.
    @Test func startAndStopStatementsReadAnIndex() async throws {
        try await TestDatabase.with { database in
            let (store, _) = try await Seed.store(database, sources: [Seed.source("a")])
            let admin = try await database.connect(serviceRole: false)
            try await admin.query("""
                INSERT INTO public.sources (name, slug, feed_url, last_fetched_at, next_due_at)
                SELECT 'x' || i, 'x-' || i, 'https://example.com/' || i, now(), now() + interval '1 hour'
                FROM generate_series(1, 20000) i
                """, label: "import")
            _ = try await store.claimDueSources(workerID: "w1", limit: 1, lease: .seconds(600))
            try await admin.runOutsideTransaction("ANALYZE public.sources", label: "analyze")
            // The plan as run: a branch the executor never entered (the unlisted count's fallback,
            // for a database without its totals row) says "never executed".
            func plan(_ sql: String, _ parameters: [any PostgresEncodable]) async throws -> String {
                try await admin.query("EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) " + sql, parameters, label: "explain")
                    .rows.compactMap { $0[0] }.filter { !$0.contains("never executed") }.joined(separator: "\n")
            }
            let release = try await plan("UPDATE public.sources SET claimed_by = NULL, lease_until = NULL WHERE claimed_by = $1",
                                         ["nobody"])
            #expect(release.contains("idx_sources_claimed_by") && !release.contains("Seq Scan"), "\(release)")
            let unlisted = try await plan("""
                SELECT coalesce((SELECT sources FROM public.source_totals), (SELECT count(*) FROM public.sources))
                       - (SELECT count(*) FROM public.sources WHERE slug = ANY ($1::text[])) AS unlisted
                """, ["{a,b}"])
            #expect(!unlisted.contains("Seq Scan on sources"), "\(unlisted)")
            let failing = try await plan("""
                SELECT count(*) FROM (SELECT 1 FROM public.sources WHERE is_active AND consecutive_failures > 0 LIMIT 20000) f
                """, [])
            #expect(failing.contains("idx_sources_status"), "\(failing)")
            #expect(try await store.releaseLeases(workerID: "w1") == 1)
            await admin.close()
            await store.connection.close()
        }
    }
}
