import ArticleStore
import Foundation
import Postgres
import TestSupport
import Testing

/// Claims read `due_at` (migration 9) from its partial index: earliest due first, leases and open
/// circuits respected, kept current by every write to a source, whoever makes it.
@Suite(.tags(.integration), .needsDatabase)
struct ClaimIndexTests {
    @Test func claimsComeInDueOrderAndRespectLeasesCircuitsAndActivity() async throws {
        try await TestDatabase.with { database in
            let (store, sources) = try await Seed.store(database, sources: [
                Seed.source("a"), Seed.source("b"), Seed.source("c"), Seed.source("d"), Seed.source("off", active: false),
            ])
            let now = Date(timeIntervalSince1970: 1_790_000_000)
            let admin = try await database.connect(serviceRole: false)
            // c was due longest ago, then a; b and d never fetched (due since ever: first, by slug).
            try await admin.query("""
                UPDATE public.sources SET next_due_at = CASE slug WHEN 'a' THEN $1::timestamptz - interval '1 hour'
                                                               WHEN 'c' THEN $1::timestamptz - interval '2 hours' END
                WHERE slug IN ('a', 'c')
                """, [now], label: "schedule")
            let first = try await store.claimDueSources(workerID: "w1", limit: 3, lease: .seconds(600), at: now)
            #expect(Set(first.map(\.slug)) == ["b", "d", "c"], "never-fetched first, then the longest overdue")
            // Leased: not claimable by another worker until the lease runs out.
            let second = try await store.claimDueSources(workerID: "w2", limit: 10, lease: .seconds(600), at: now)
            #expect(second.map(\.slug) == ["a"])
            #expect(try await store.claimDueSources(workerID: "w3", limit: 10, lease: .seconds(600), at: now).isEmpty)
            let later = now.addingTimeInterval(601)
            #expect(Set(try await store.claimDueSources(workerID: "w3", limit: 10, lease: .seconds(600), at: later)
                .map(\.slug)) == ["a", "b", "c", "d"], "a crashed worker's leases expire")

            // Finishing schedules the next fetch and frees the lease; an open circuit holds it back.
            try await store.recordFetchSuccess(sourceID: sources["a"]!.id, etag: nil, lastModified: nil, notModified: false,
                                               at: later, schedule: NextFetch(dueAt: later.addingTimeInterval(3600), workerID: "w3"))
            for _ in 1...5 { _ = try await store.recordFetchFailure(sourceID: sources["b"]!.id, at: later) }
            try await store.releaseLeases(workerID: "w3")
            let soon = later.addingTimeInterval(1800)
            #expect(Set(try await store.claimDueSources(workerID: "w4", limit: 10, lease: .seconds(60), at: soon)
                .map(\.slug)) == ["c", "d"])
            #expect(try await store.nextDueTime() == soon.addingTimeInterval(60), "the earliest is w4's leases' end")
            await admin.close()
            await store.connection.close()
        }
    }

    /// A source whose pass failed on the database is given back at once, due at its retry time;
    /// only this worker's leases are touched.
    @Test func failedSourcesAreGivenBackDueAtTheirRetry() async throws {
        try await TestDatabase.with { database in
            let (store, sources) = try await Seed.store(database, sources: [Seed.source("a"), Seed.source("b")])
            let now = Date(timeIntervalSince1970: 1_790_000_000)
            _ = try await store.claimDueSources(workerID: "w1", limit: 1, lease: .seconds(600), slugs: ["a"], at: now)
            _ = try await store.claimDueSources(workerID: "w2", limit: 1, lease: .seconds(600), slugs: ["b"], at: now)
            let retry = now.addingTimeInterval(60)
            let returned = try await store.returnLeases(workerID: "w1", retries: [
                sources["a"]!.id: retry, sources["b"]!.id: retry,
            ])
            #expect(returned == 1, "b is w2's")
            #expect(try await store.claimDueSources(workerID: "w3", limit: 10, lease: .seconds(60), at: now.addingTimeInterval(59)).isEmpty)
            #expect(try await store.claimDueSources(workerID: "w3", limit: 10, lease: .seconds(60), at: retry)
                .map(\.slug) == ["a"], "a is due at its retry; b is still leased by w2")
            await store.connection.close()
        }
    }

    /// Writes that do not go through the store (the backend's RPC, an operator's UPDATE) keep
    /// `due_at` current too: the trigger computes it.
    @Test func everyWriteKeepsDueAtCurrent() async throws {
        try await TestDatabase.with { database in
            let (store, _) = try await Seed.store(database, sources: [Seed.source("a")])
            let admin = try await database.connect(serviceRole: false)
            try await admin.query("""
                UPDATE public.sources SET last_fetched_at = '2026-01-01 00:00:00+00', next_due_at = NULL,
                       fetch_interval_hours = 3, lease_until = NULL, circuit_open_until = NULL
                """, label: "operator update")
            var due = try await admin.query("SELECT due_at = '2026-01-01 03:00:00+00' FROM public.sources", label: "due").rows.first?[0]
            #expect(due == "t")
            try await admin.query("UPDATE public.sources SET circuit_open_until = '2026-02-01 00:00:00+00'", label: "circuit")
            due = try await admin.query("SELECT due_at = '2026-02-01 00:00:00+00' FROM public.sources", label: "due").rows.first?[0]
            #expect(due == "t")
            await admin.close()
            await store.connection.close()
        }
    }

    /// At 20,000 sources the claim and the next-wake-up query read the partial index in order
    /// instead of scanning and sorting the table (the plan is asserted, not a time).
    @Test func claimAndWakeUpUseTheIndex() async throws {
        try await TestDatabase.with { database in
            let (store, _) = try await Seed.store(database, sources: [Seed.source("seed")])
            let admin = try await database.connect(serviceRole: false)
            try await admin.query("""
                INSERT INTO public.sources (name, slug, feed_url, category_id, language, is_active, next_due_at)
                SELECT 'S' || i, 'bulk-' || i, 'https://feeds.example.com/' || i || '.xml',
                       (SELECT id FROM public.categories WHERE slug = 'world'), 'en', true,
                       now() + (i % 1000) * interval '1 minute'
                FROM generate_series(1, 20000) AS i
                """, label: "bulk sources")
            try await admin.runOutsideTransaction("ANALYZE public.sources", label: "analyze")
            let claimPlan = try await admin.query("""
                EXPLAIN SELECT s.id FROM public.sources s
                WHERE s.is_active AND s.due_at <= now() + interval '10 minutes'
                ORDER BY s.due_at, s.slug LIMIT 16 FOR UPDATE SKIP LOCKED
                """, label: "claim plan").rows.compactMap { $0[0] }.joined(separator: "\n")
            #expect(claimPlan.contains("idx_sources_due_at") && !claimPlan.contains("Sort"), "\(claimPlan)")
            let wakePlan = try await admin.query("""
                EXPLAIN SELECT due_at FROM public.sources WHERE is_active ORDER BY due_at, slug LIMIT 1
                """, label: "wake plan").rows.compactMap { $0[0] }.joined(separator: "\n")
            #expect(wakePlan.contains("idx_sources_due_at") && !wakePlan.contains("Seq Scan"), "\(wakePlan)")
            let claimed = try await store.claimDueSources(workerID: "w", limit: 16, lease: .seconds(60))
            #expect(claimed.count == 16)
            await admin.close()
            await store.connection.close()
        }
    }
}
