import ArticleStore
import Foundation
@testable import HTTPFetcher
@testable import Ingestion
import LoopbackHTTPServer
import Postgres
import PulseModel
import Synchronization
import TestSupport
import Testing

/// Several daemons on one database: every due source fetched exactly once per cycle, and a
/// crashed daemon's sources come back after its lease.
@Suite(.tags(.integration), .needsDatabase)
struct DaemonTests {
    static let sourceCount = 200

    final class CountingObserver: DaemonObserver {
        let passes = Mutex(0)
        let ready = Mutex(false)
        let gauges = Mutex<[FleetGaugeReading]>([])
        func fleetGaugesRead(_ reading: FleetGaugeReading) { gauges.withLock { $0.append(reading) } }
        func daemonReady(workerID: String) { ready.withLock { $0 = true } }
        func loopTicked(at: Date) {}
        func passFinished(_ summary: PassSummary, claimed: Int) { passes.withLock { $0 += 1 } }
        func databaseProblem(_ error: any Error) {}
        func daemonStopping() {}
    }

    @Test func threeDaemonsShareTheWorkAndSurviveACrashedPeer() async throws {
        let now = Date()
        let server = try FixtureFeeds.feedServer(now: now)
        defer { server.stop() }
        try await TestDatabase.with { database in
            let definitions = (1...Self.sourceCount).map { number in
                var source = Seed.source(String(format: "farm-%03d", number))
                // Feeds 7 and 13 of the fixture server fail; skip them so every source succeeds.
                source.feedURL = "\(server.base)/feeds/\(number + 100).xml"
                return source
            }
            let (seedStore, _) = try await Seed.store(database, sources: definitions)
            // A daemon that claimed 20 sources and then died (kill -9): its lease is short.
            let crashed = try await seedStore.claimDueSources(workerID: "crashed", limit: 20, lease: .seconds(2))
            #expect(crashed.count == 20)
            // Fleet figures from before the daemons, 20 s old: the first daemon to look recomputes them.
            _ = try await seedStore.fleetGauges(workerID: "seed", interval: .seconds(15))
            let admin = try await database.connect(serviceRole: false)
            try await admin.query("UPDATE public.fleet_gauges SET computed_at = now() - interval '20 seconds'",
                                  label: "age the figures")
            await admin.close()
            await seedStore.connection.close()

            let policy = SchedulePolicy(minimumInterval: .seconds(3600), maximumInterval: .seconds(7200))
            for cycle in 1...2 {
                let cycleStart = Date()
                var daemons: [IngestDaemon] = []
                var observers: [CountingObserver] = []
                var connections: [PostgresConnection] = []
                let fetcher = FixtureFeeds.fetcher()
                for index in 0..<3 {
                    let connection = try await database.connect()
                    connections.append(connection)
                    let store = ArticleStore(connection: connection)
                    let settings = DaemonSettings(claimBatch: 10, lease: .seconds(60), idlePoll: .milliseconds(200)) { store in
                        var pass = IngestPass(store: store, fetcher: fetcher, concurrency: 5, logger: TestDatabase.logger)
                        pass.scheduling = PassScheduling(workerID: "daemon-\(index)", policy: policy)
                        return pass
                    }
                    observers.append(CountingObserver())
                    daemons.append(IngestDaemon(workerID: "daemon-\(index)", store: store, settings: settings,
                                                observer: observers[index], logger: TestDatabase.logger))
                }
                let runs = daemons.map { daemon in Task { try await daemon.run() } }
                let watcher = try await database.connect(serviceRole: false)
                let deadline = Date().addingTimeInterval(60)
                while Date() < deadline {
                    let done = try await watcher.query("""
                        SELECT count(*) FROM public.sources
                        WHERE last_fetched_at >= $1::timestamptz AND claimed_by IS NULL
                        """, [cycleStart], label: "progress").rows.first?.int("count") ?? 0
                    if done == Self.sourceCount { break }
                    try await Task.sleep(for: .milliseconds(100))
                }
                for daemon in daemons { daemon.requestStop() }
                for run in runs { try await run.value }
                fetcher.shutdown()

                if cycle == 1 {
                    // Each daemon read the fleet figures as it started; one of them computed them
                    // (the others read its figures, or the seed's while it computed).
                    let first = observers.compactMap { $0.gauges.withLock { $0.first } }
                    #expect(first.count == 3)
                    let computed = first.filter(\.computedHere)
                    #expect(computed.count == 1, "\(first)")
                    #expect(first.allSatisfy { ["seed", computed.first?.computedBy].contains($0.computedBy) })
                    #expect(first.allSatisfy { $0.gauges.sources == Self.sourceCount && $0.age >= .zero })
                }
                // Every source fetched exactly once in this cycle, by exactly one daemon.
                for number in 1...Self.sourceCount {
                    #expect(server.hits("/feeds/\(number + 100).xml") == cycle, "feed \(number + 100) in cycle \(cycle)")
                }
                let rows = try await watcher.query("""
                    SELECT count(*) AS articles, count(DISTINCT url_hash) AS distinct_urls,
                           (SELECT count(*) FROM public.sources WHERE claimed_by IS NOT NULL) AS leased,
                           (SELECT count(*) FROM public.fetch_logs WHERE status <> 'completed') AS open_logs
                    FROM public.articles
                    """, label: "totals").rows.first
                #expect(rows?.int("articles") == Self.sourceCount * (FixtureFeeds.itemsPerFeed - 1))
                #expect(rows?.int("distinct_urls") == rows?.int("articles"))
                #expect(rows?.int("leased") == 0 && rows?.int("open_logs") == 0)
                let scheduled = try await watcher.query("""
                    SELECT min(next_due_at - last_fetched_at) AS shortest, max(next_due_at - last_fetched_at) AS longest
                    FROM public.sources
                    """, label: "schedule").rows.first
                #expect(scheduled?["shortest"] != nil)
                // Make everything due again for the next cycle.
                try await watcher.query("UPDATE public.sources SET next_due_at = now() - interval '1 second'",
                                        label: "make due")
                await watcher.close()
                for connection in connections { await connection.close() }
            }
        }
    }
}
