import ArticleStore
import FoundationEssentials
import Glibc
import Ingestion
import Logging
import Scheduler
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
    /// Fleet-wide counts read once per loop iteration (metrics gauges).
    func sourcesCounted(_ counts: SourceCounts)
}

extension DaemonObserver {
    public func sourcesCounted(_ counts: SourceCounts) {}
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
    public var makePass: @Sendable (ArticleStore) -> IngestPass

    public init(claimBatch: Int = 16, lease: Duration = .seconds(600), idlePoll: Duration = .seconds(30),
                sourcesInFlight: Int? = nil, passesInFlight: Int? = nil,
                makePass: @escaping @Sendable (ArticleStore) -> IngestPass) {
        self.claimBatch = max(1, claimBatch)
        self.lease = lease
        self.idlePoll = idlePoll
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

    public init(workerID: String, store: ArticleStore, settings: DaemonSettings,
                observer: any DaemonObserver, logger: Logger) {
        self.workerID = workerID
        self.store = store
        self.settings = Mutex(settings)
        self.observer = observer
        self.logger = logger
    }

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
                    let claimed = try await store.claimDueSources(workerID: workerID, limit: limit,
                                                                  lease: current.lease)
                    failures = 0
                    if !ready {
                        ready = true
                        observer.daemonReady(workerID: workerID)
                    }
                    observer.loopTicked(at: Date())
                    if let counts = try? await store.sourceCounts() { observer.sourcesCounted(counts) }
                    if claimed.isEmpty {
                        // With passes still running, look again soon: one may finish early.
                        await sleepUntilDue(idlePoll: running.load(ordering: .acquiring) > 0
                                            ? min(current.idlePoll, .seconds(1)) : current.idlePoll)
                        continue
                    }
                    running.add(1, ordering: .releasing)
                    sourcesRunning.add(claimed.count, ordering: .releasing)
                    let pass = current.makePass(store)
                    group.addTask { [self] in
                        let reported = ReportedCount()
                        defer {
                            running.subtract(1, ordering: .releasing)
                            // Sources a failed or interrupted pass never reported free their slots here.
                            sourcesRunning.subtract(claimed.count - reported.value, ordering: .releasing)
                        }
                        do {
                            let summary = try await pass.run(sources: claimed, stop: stop) { [self] _ in
                                reported.increment()
                                sourcesRunning.subtract(1, ordering: .releasing)
                            }
                            observer.passFinished(summary, claimed: claimed.count)
                        } catch {
                            observer.databaseProblem(error)
                            logger.error("database problem in a pass; its sources return when their lease expires",
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

/// Outcomes one pass has reported so far.
private final class ReportedCount: Sendable {
    private let count = Atomic<Int>(0)
    var value: Int { count.load(ordering: .acquiring) }
    func increment() { count.add(1, ordering: .releasing) }
}
