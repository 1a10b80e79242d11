import ArticleStore
import FoundationEssentials
import Glibc
import Logging
import ServiceLifecycle
import Synchronization

/// What the daemon reports while it runs: the seam to systemd notify, metrics and readiness.
public protocol DaemonObserver: Sendable {
    /// The first claim succeeded: the daemon is serving.
    func daemonReady(workerID: String)
    /// One loop iteration completed with the database answering (watchdog, readiness).
    func loopTicked(at: Date)
    func passFinished(_ summary: PassSummary, claimed: Int)
    func databaseProblem(_ error: any Error)
    func daemonStopping()
    /// The fleet gauges, read every `fleetGaugesInterval` (computed by one daemon of the fleet).
    func fleetGaugesRead(_ reading: FleetGaugeReading)
    /// Nothing was due and no pass is running: every due source has been done.
    func daemonIdle()
}

extension DaemonObserver {
    public func fleetGaugesRead(_ reading: FleetGaugeReading) {}
    public func daemonIdle() {}
}

/// Settings a SIGHUP may replace without a restart.
public struct DaemonSettings: Sendable {
    /// Sources claimed per pass (one pass = one claim-and-process cycle = one fetch_logs row).
    public var claimBatch: Int
    /// How long a claim stays ours; a crashed daemon's sources return after it.
    public var lease: Duration
    /// Longest sleep when nothing is due.
    public var idlePoll: Duration
    /// Sources claimed and not yet finished, across all passes. New sources are claimed as
    /// single sources finish, not when a whole pass does: a pass ends only with its slowest source
    /// (a stalled server can hold one for the whole fetch timeout), and counting passes let four
    /// stalled feeds idle the daemon (on the benchmark farm, the 1% slow feeds held the pass slots
    /// for most of the cycle).
    public var sourcesInFlight: Int
    /// Passes that may be open at once (each holds a fetch_logs row until its last source ends).
    /// By default as many as sources in flight: every open pass has a source in flight, so the
    /// sources alone bound the work. A lower cap let passes kept open by one slow source each hold
    /// back claims: on the 2,000-feed farm, 16 passes held the bulk rate at 6,130 rows/s against
    /// 6,700 with the cap at 64 (two runs each).
    public var passesInFlight: Int
    /// When a source's pass failed on the database, its lease is given back with the source due
    /// again after this long, twice this from its second failure in a row: a database fault
    /// delays a source by a minute or two, not by the whole lease, and items that leave its feed
    /// meanwhile are not lost.
    public var databaseRetryDelay: Duration
    public var makePass: @Sendable (ArticleStore) -> IngestPass

    public init(claimBatch: Int = 16, lease: Duration = .seconds(600), idlePoll: Duration = .seconds(30),
                sourcesInFlight: Int? = nil, passesInFlight: Int? = nil, databaseRetryDelay: Duration = .seconds(60),
                makePass: @escaping @Sendable (ArticleStore) -> IngestPass) {
        self.claimBatch = max(1, claimBatch)
        self.lease = lease
        self.idlePoll = idlePoll
        self.databaseRetryDelay = databaseRetryDelay
        self.sourcesInFlight = max(self.claimBatch, sourcesInFlight ?? 4 * self.claimBatch)
        self.passesInFlight = max(1, passesInFlight ?? self.sourcesInFlight)
        self.makePass = makePass
    }

    /// How many sources to claim now: nil while fewer than half a batch of slots are free.
    func claimLimit(sourcesRunning: Int, passesRunning: Int) -> Int? {
        let free = sourcesInFlight - sourcesRunning
        guard passesRunning < passesInFlight, free >= max(1, claimBatch / 2) else { return nil }
        return min(free, claimBatch)
    }
}

/// The long-running service: claim due sources with a lease, run a pass over them, repeat.
/// Several daemons on several hosts share one database; PostgreSQL is the only coordinator.
public final class IngestDaemon: Service, Sendable {
    public let workerID: String
    private let store: ArticleStore
    private let observer: any DaemonObserver
    private let logger: Logger
    private let settings: Mutex<DaemonSettings>
    private let stop = StopSignal()
    /// Set by `update` so a sleeping loop claims again at once (new sources after SIGHUP).
    private let nudged = Atomic<Bool>(false)
    /// Passes started and not yet finished.
    private let running = Atomic<Int>(0)
    /// Sources claimed whose outcome is not in yet.
    private let sourcesRunning = Atomic<Int>(0)
    /// Passes that failed on the database since the loop last looked (it backs off).
    private let passFailures = Atomic<Int>(0)
    /// Sources whose pass failed on the database, by id, with when each is due again: their
    /// leases are given back before the next claim (`ArticleStore.returnLeases`).
    private let retries = Mutex<[String: Date]>([:])
    /// Database failures in a row, by source id (the retry delay doubles from the second).
    private let databaseFailures = Mutex<[String: Int]>([:])

    public init(workerID: String, store: ArticleStore, settings: DaemonSettings,
                observer: any DaemonObserver, logger: Logger) {
        self.workerID = workerID
        self.store = store
        self.settings = Mutex(settings)
        self.observer = observer
        self.logger = logger
    }

    /// How often a daemon reads the fleet gauges, and how old they get before one recomputes them.
    public static let fleetGaugesInterval: Duration = .seconds(15)

    /// SIGHUP: the next pass uses these.
    public func update(_ settings: DaemonSettings) {
        self.settings.withLock { $0 = settings }
        nudged.store(true, ordering: .relaxed)
    }

    /// Stops claiming; in-flight sources get the pass's drain deadline.
    public func requestStop() { stop.stop() }

    public func run() async throws {
        await withGracefulShutdownHandler {
            await loop()
        } onGracefulShutdown: { [stop] in
            stop.stop()
        }
    }

    private func loop() async {
        var ready = false
        var failures = 0
        var lastCounted: ContinuousClock.Instant?
        await withDiscardingTaskGroup { group in
            while !stop.isStopped {
                let current = settings.withLock { $0 }
                guard let limit = current.claimLimit(sourcesRunning: sourcesRunning.load(ordering: .acquiring),
                                                     passesRunning: running.load(ordering: .acquiring)) else {
                    await sleep(.milliseconds(20))
                    continue
                }
                if passFailures.exchange(0, ordering: .relaxed) > 0 {
                    await backOff(&failures)
                    continue
                }
                do {
                    try await returnFailedLeases()
                    let claimed = try await store.claimDueSources(workerID: workerID, limit: limit,
                                                                  lease: current.lease)
                    failures = 0
                    if !ready {
                        ready = true
                        observer.daemonReady(workerID: workerID)
                    }
                    observer.loopTicked(at: Date())
                    // Fleet-wide gauges, not per-claim facts: read every interval, and computed by
                    // whichever daemon of the fleet finds them due (`ArticleStore.fleetGauges`).
                    if lastCounted.map({ ContinuousClock.now - $0 >= Self.fleetGaugesInterval }) ?? true {
                        lastCounted = ContinuousClock.now
                        if let reading = try? await store.fleetGauges(workerID: workerID, interval: Self.fleetGaugesInterval) {
                            observer.fleetGaugesRead(reading)
                        }
                    }
                    if claimed.isEmpty {
                        // With passes still running, look again soon: one may finish early.
                        let busy = running.load(ordering: .acquiring) > 0
                        if !busy { observer.daemonIdle() }
                        await sleepUntilDue(idlePoll: busy ? min(current.idlePoll, .seconds(1)) : current.idlePoll)
                        continue
                    }
                    running.add(1, ordering: .releasing)
                    sourcesRunning.add(claimed.count, ordering: .releasing)
                    let pass = current.makePass(store)
                    let retryDelay = current.databaseRetryDelay
                    group.addTask { [self] in
                        let reported = ReportedSources()
                        defer {
                            running.subtract(1, ordering: .releasing)
                            // Sources a failed or interrupted pass never reported free their slots here.
                            sourcesRunning.subtract(claimed.count - reported.count, ordering: .releasing)
                        }
                        do {
                            let summary = try await pass.run(sources: claimed, stop: stop) { [self] outcome in
                                reported.insert(outcome.slug)
                                sourcesRunning.subtract(1, ordering: .releasing)
                                if let source = claimed.first(where: { $0.slug == outcome.slug }) {
                                    noteStore(sourceID: source.id, failed: outcome.databaseFailure, delay: retryDelay)
                                }
                            }
                            observer.passFinished(summary, claimed: claimed.count)
                        } catch {
                            // The pass's own bookkeeping failed (its fetch_logs row): the sources it
                            // did not get to are given back to be retried soon.
                            for source in claimed where !stop.isStopped && !reported.contains(source.slug) {
                                noteStore(sourceID: source.id, failed: true, delay: retryDelay)
                            }
                            observer.databaseProblem(error)
                            logger.error("database problem in a pass; its unfinished sources are retried soon",
                                         metadata: ["error": "\(error)"])
                            passFailures.add(1, ordering: .relaxed)
                        }
                    }
                } catch {
                    observer.databaseProblem(error)
                    logger.error("database problem; backing off", metadata: ["error": "\(error)", "attempt": "\(failures + 1)"])
                    await backOff(&failures)
                }
            }
            // Stop requested: said now (the log line, systemd's STOPPING=1), while the passes in
            // flight drain within their own deadline as the group ends.
            observer.daemonStopping()
        }
        do {
            let released = try await store.releaseLeases(workerID: workerID)
            logger.info("stopped; leases released", metadata: ["released": "\(released)"])
        } catch {
            logger.warning("could not release leases; they expire on their own", metadata: ["error": "\(error)"])
        }
    }

    /// Records how a source's store went: a database failure schedules its retry (see
    /// `DaemonSettings.databaseRetryDelay`), a success forgets earlier failures.
    private func noteStore(sourceID: String, failed: Bool, delay: Duration) {
        guard failed else {
            _ = databaseFailures.withLock { $0.removeValue(forKey: sourceID) }
            return
        }
        let inARow = databaseFailures.withLock { failures in
            failures[sourceID, default: 0] += 1
            return failures[sourceID]!
        }
        let wait = inARow > 1 ? delay * 2 : delay
        let due = Date().addingTimeInterval(wait.seconds)
        retries.withLock { $0[sourceID] = due }
    }

    /// Gives back the leases of sources that failed on the database (each due at its retry time).
    /// Throws while the database still fails; they stay queued until it answers.
    private func returnFailedLeases() async throws {
        let pending = retries.withLock { $0 }
        guard !pending.isEmpty else { return }
        let returned = try await store.returnLeases(workerID: workerID, retries: pending)
        retries.withLock { queued in
            for (id, due) in pending where queued[id] == due { queued.removeValue(forKey: id) }
        }
        logger.info("gave back the leases of sources that failed on the database", metadata: [
            "sources": "\(pending.count)", "returned": "\(returned)",
        ])
    }

    private func backOff(_ failures: inout Int) async {
        failures += 1
        await sleep(.seconds(min(30, 1 << min(failures, 5))))
    }

    /// Sleeps until the earliest source is due, at most `idlePoll`, waking early on stop.
    private func sleepUntilDue(idlePoll: Duration) async {
        var wait = idlePoll
        if let due = try? await store.nextDueTime() {
            let untilDue = Duration.seconds(max(0, due.timeIntervalSinceNow))
            wait = min(wait, max(untilDue, .milliseconds(200)))
        }
        await sleep(wait)
    }

    /// Sleeps in short steps so a stop or a nudge is noticed within half a second.
    private func sleep(_ duration: Duration) async {
        let end = ContinuousClock.now + duration
        while !stop.isStopped, !nudged.exchange(false, ordering: .relaxed) {
            let left = end - ContinuousClock.now
            if left <= .zero { return }
            try? await Task.sleep(for: min(left, .milliseconds(500)))
        }
    }
}

/// The sources one pass has reported so far, by slug.
private final class ReportedSources: Sendable {
    private let slugs = Mutex<Set<String>>([])
    var count: Int { slugs.withLock { $0.count } }
    func insert(_ slug: String) { _ = slugs.withLock { $0.insert(slug) } }
    func contains(_ slug: String) -> Bool { slugs.withLock { $0.contains(slug) } }
}
