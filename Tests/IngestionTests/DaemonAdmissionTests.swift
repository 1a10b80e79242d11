import ArticleStore
import Dispatch
import Foundation
import HTTPFetcher
@testable import Ingestion
import LoopbackHTTPServer
import Postgres
import Synchronization
import TestSupport
import Testing

/// The daemon claims new sources as single sources finish: a stalled feed holds its own slot,
/// never its whole batch's.
@Suite(.tags(.integration))
struct DaemonAdmissionTests {
    @Test func claimLimitCountsSourcesNotPasses() {
        let settings = DaemonSettings(claimBatch: 8, sourcesInFlight: 32, passesInFlight: 16) { _ in
            fatalError("not used")
        }
        #expect(settings.claimLimit(sourcesRunning: 0, passesRunning: 0) == 8)
        #expect(settings.claimLimit(sourcesRunning: 27, passesRunning: 5) == 5)
        #expect(settings.claimLimit(sourcesRunning: 29, passesRunning: 5) == nil)   // 3 free: under half a batch
        #expect(settings.claimLimit(sourcesRunning: 0, passesRunning: 16) == nil)
        let defaults = DaemonSettings(claimBatch: 4) { _ in fatalError("not used") }
        #expect(defaults.sourcesInFlight == 16)
        // Passes are capped by default only by the sources in flight (each open pass has one):
        // 16 passes each kept open by one slow source leave room to claim.
        #expect(defaults.passesInFlight == 16)
        let service = DaemonSettings(claimBatch: 16, sourcesInFlight: 64) { _ in fatalError("not used") }
        #expect(service.passesInFlight == 64)
        #expect(service.claimLimit(sourcesRunning: 16, passesRunning: 16) == 16)
        #expect(service.claimLimit(sourcesRunning: 40, passesRunning: 40) == 16)
        #expect(service.claimLimit(sourcesRunning: 60, passesRunning: 30) == nil)   // 4 free: under half a batch
    }

    @Test(.needsDatabase) func aStalledFeedDoesNotHoldBackTheOthers() async throws {
        let now = Date()
        let feeds = try FixtureFeeds.feedServer(now: now)
        defer { feeds.stop() }
        let gate = StallGate()
        let stalled = try LoopbackHTTPServer(routes: ["/stall.xml": { _, connection, _ in
            gate.hold()
            connection.respond(200, headers: [("Content-Type", "application/rss+xml")],
                               body: Array(FixtureFeeds.rss(number: 1, now: now).utf8))
        }])
        defer { stalled.stop() }
        try await TestDatabase.with { database in
            var definitions = [Seed.source("a-stall")]
            definitions[0].feedURL = "\(stalled.base)/stall.xml"
            for number in 1...9 {
                var source = Seed.source("feed-\(number)")
                source.feedURL = "\(feeds.base)/feeds/\(number + 100).xml"
                definitions.append(source)
            }
            let (store, _) = try await Seed.store(database, sources: definitions)
            // Longer than the test's own deadline: the stall must not end as a client time-out.
            let fetcher = FixtureFeeds.fetcher {
                $0.totalTimeout = .seconds(120)
                $0.lowSpeedTime = .seconds(120)
            }
            let policy = SchedulePolicy(minimumInterval: .seconds(3600), maximumInterval: .seconds(7200))
            // Batches of two, four sources in flight: under pass counting, the stalled feed's
            // batch would have kept its slots until the stall ended.
            let settings = DaemonSettings(claimBatch: 2, lease: .seconds(60), idlePoll: .milliseconds(200),
                                          sourcesInFlight: 4, passesInFlight: 16) { store in
                var pass = IngestPass(store: store, fetcher: fetcher, concurrency: 2, logger: TestDatabase.logger)
                pass.scheduling = PassScheduling(workerID: "admission", policy: policy)
                return pass
            }
            let daemon = IngestDaemon(workerID: "admission", store: store, settings: settings,
                                      observer: DaemonTests.CountingObserver(), logger: TestDatabase.logger)
            let run = Task { try await daemon.run() }
            let watcher = try await database.connect(serviceRole: false)
            var fetched = 0
            let deadline = Date().addingTimeInterval(45)
            while Date() < deadline {
                fetched = try await watcher.query("""
                    SELECT count(*) FROM public.sources WHERE slug LIKE 'feed-%' AND last_fetched_at IS NOT NULL
                    """, label: "progress").rows.first?.int("count") ?? 0
                if fetched == 9 { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            let stillHeld = gate.inside.load(ordering: .relaxed)
            let stallFinished = try await watcher.query("""
                SELECT last_fetched_at IS NOT NULL AS finished FROM public.sources WHERE slug = 'a-stall'
                """, label: "stall").rows.first?.bool("finished")
            gate.semaphore.signal()
            #expect(fetched == 9)
            #expect(stillHeld == 1 && stallFinished == false, "the stalled feed ended before the others were fetched")
            daemon.requestStop()
            try await run.value
            fetcher.shutdown()
            await watcher.close()
            await store.connection.close()
        }
    }

    /// A stop does not wait for fetches: a feed stuck in flight (an unreachable network, a stalled
    /// server) is abandoned at once instead of holding the drain, is not counted as the feed's
    /// failure, and its lease is given back, so the restart fetches it.
    @Test(.needsDatabase) func aStopAbandonsFetchesInFlight() async throws {
        let gate = StallGate()
        let stalled = try LoopbackHTTPServer(routes: ["/stall.xml": { _, connection, _ in
            gate.hold()
            connection.respond(500)
        }])
        defer { stalled.stop() }
        try await TestDatabase.with { database in
            var definition = Seed.source("stuck")
            definition.feedURL = "\(stalled.base)/stall.xml"
            let (store, _) = try await Seed.store(database, sources: [definition])
            let fetcher = FixtureFeeds.fetcher {
                $0.totalTimeout = .seconds(300)
                $0.lowSpeedTime = .seconds(300)
            }
            // A drain deadline longer than the gate's own bound: only an abandoned fetch lets the
            // daemon stop while the server still holds the request.
            let settings = DaemonSettings(claimBatch: 1, lease: .seconds(600), idlePoll: .milliseconds(200)) { store in
                IngestPass(store: store, fetcher: fetcher, concurrency: 1, drainDeadline: .seconds(300),
                           logger: TestDatabase.logger)
            }
            let daemon = IngestDaemon(workerID: "stopper", store: store, settings: settings,
                                      observer: DaemonTests.CountingObserver(), logger: TestDatabase.logger)
            let run = Task { try await daemon.run() }
            let deadline = Date().addingTimeInterval(45)
            while gate.inside.load(ordering: .relaxed) == 0, Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
            #expect(gate.inside.load(ordering: .relaxed) == 1, "the feed was never requested")
            daemon.requestStop()
            try await run.value
            let stillHeld = gate.inside.load(ordering: .relaxed)
            gate.semaphore.signal()
            #expect(stillHeld == 1, "the stop waited for the stalled fetch")
            let row = try await store.connection.query("""
                SELECT consecutive_failures, claimed_by IS NULL AS released, last_fetched_at IS NULL AS unfetched
                FROM public.sources WHERE slug = 'stuck'
                """, label: "stuck").rows.first
            #expect(row?.int("consecutive_failures") == 0)
            #expect(row?.bool("released") == true && row?.bool("unfetched") == true)
            fetcher.shutdown()
            await store.connection.close()
        }
    }
}
