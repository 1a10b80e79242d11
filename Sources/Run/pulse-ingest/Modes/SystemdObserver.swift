import FoundationEssentials
import Ingestion
import Synchronization
import SystemdNotify

/// Reports the daemon's life to systemd (Type=notify): READY=1 after the first claim, STATUS= per
/// pass, STOPPING=1 on shutdown; and tells the watchdog whether the loop and the database are
/// healthy. Goes into `ServiceObserver.extra`.
final class SystemdObserver: DaemonObserver {
    let notifier: SystemdNotifier
    /// When the loop last turned.
    private let lastSign = Mutex<ContinuousClock.Instant>(.now)
    /// Since when the database has been failing (nil while it answers).
    private let databaseDownSince = Mutex<ContinuousClock.Instant?>(nil)
    /// Past one lease (10 min) without a loop turn our claims expire anyway: let systemd restart us.
    private let stallLimit: Duration
    /// A short outage is ridden out by the loop's own reconnect; a longer one stops the watchdog
    /// pings so systemd restarts the service (the contract: pings only while the database is healthy).
    private let outageGrace: Duration

    init(notifier: SystemdNotifier, stallLimit: Duration = .seconds(600), outageGrace: Duration = .seconds(300)) {
        self.notifier = notifier
        self.stallLimit = stallLimit
        self.outageGrace = outageGrace
    }

    func daemonReady(workerID: String) {
        lastSign.withLock { $0 = .now }
        notifier.ready(status: "serving as \(workerID)")
    }

    func loopTicked(at: Date) {
        lastSign.withLock { $0 = .now }
        databaseDownSince.withLock { $0 = nil }
    }

    func passFinished(_ summary: PassSummary, claimed: Int) { notifier.status(summary.line) }

    func databaseProblem(_ error: any Error) {
        lastSign.withLock { $0 = .now }
        databaseDownSince.withLock { $0 = $0 ?? .now }
        notifier.status("database unavailable; retrying")
    }

    func daemonStopping() { notifier.stopping() }

    /// For `notifier.runWatchdog(isAlive:)`.
    func isAlive() -> Bool {
        let now = ContinuousClock.now
        let looping = lastSign.withLock { now - $0 < stallLimit }
        let databaseOK = databaseDownSince.withLock { $0.map { now - $0 < outageGrace } ?? true }
        return looping && databaseOK
    }
}
