import ArticleStore
import Daemon
import FoundationEssentials
import HTTPFetcher
import Ingestion
import Logging
import Observability
import Synchronization

/// What the service reports goes to the log, the metrics and the readiness tracker (and, through
/// `extra`, to systemd).
struct ServiceObserver: DaemonObserver {
    let logger: Logger
    let metrics: PulseMetrics
    let readiness: ReadinessTracker
    var extra: [any DaemonObserver] = []
    /// Set after "all N sources failed" was logged; cleared by the next pass with a success, so an
    /// outage is reported once, not on every pass.
    let outageReported = OutageLatch()

    func daemonReady(workerID: String) {
        logger.info("ready", metadata: ["worker": "\(workerID)"])
        for observer in extra { observer.daemonReady(workerID: workerID) }
    }

    func loopTicked(at date: Date) {
        readiness.recordDatabase(error: nil)
        metrics.setDatabaseUp(true)
        readiness.recordSchedulerTick()
        for observer in extra { observer.loopTicked(at: date) }
    }

    func passFinished(_ summary: PassSummary, claimed: Int) {
        logger.info("\(summary.line)")
        if let notice = summary.allFailedNotice {
            if outageReported.set() { logger.warning("\(notice)") }
        } else if summary.failedCount < summary.outcomes.count {
            outageReported.clear()
        }
        if let everyStoreFailed = summary.everyStoreFailed {
            let first = summary.outcomes.first(where: \.databaseFailure).map { outcome -> String in
                if case .failed(let message) = outcome.result { message } else { "" }
            }
            readiness.recordStores(error: everyStoreFailed ? first ?? "database error" : nil)
            metrics.setStoresFailing(everyStoreFailed)
        }
        var dropped: [String: Int] = [:]
        for outcome in summary.outcomes {
            metrics.recordFetch(outcome: Self.fetchOutcome(outcome), duration: outcome.fetchDuration, bytes: outcome.bytes)
            if outcome.result == .updated { metrics.recordParse(duration: outcome.parseDuration) }
            for duration in outcome.enrichDurations { metrics.recordEnrich(duration: duration) }
            metrics.recordLanguageDisagreements(outcome.languageDisagreements)
            for (kind, count) in outcome.parseRefusals { metrics.recordParseRefusals(kind: kind, count: count) }
            dropped["duplicate", default: 0] += outcome.duplicates
            dropped["invalid", default: 0] += outcome.dropped
            dropped["too_old", default: 0] += outcome.tooOld
        }
        metrics.recordItems(seen: summary.itemsSeen, inserted: summary.inserted, droppedByReason: dropped)
        metrics.setClaimed(claimed)
        if summary.failedCount < summary.outcomes.count || summary.outcomes.isEmpty { metrics.markPassSucceeded() }
        for observer in extra { observer.passFinished(summary, claimed: claimed) }
    }

    func sourcesCounted(_ counts: SourceCounts) {
        metrics.setSourceCounts(due: counts.due, circuitOpen: counts.circuitOpen)
        for observer in extra { observer.sourcesCounted(counts) }
    }

    func databaseProblem(_ error: any Error) {
        metrics.recordDatabaseError()
        metrics.setDatabaseUp(false)
        readiness.recordDatabase(error: "\(error)")
        for observer in extra { observer.databaseProblem(error) }
    }

    func daemonStopping() {
        logger.info("stopping: no new claims; draining in-flight sources")
        for observer in extra { observer.daemonStopping() }
    }

    static func fetchOutcome(_ outcome: SourceOutcome) -> FetchOutcome {
        switch outcome.result {
        case .updated: return .ok
        case .notModified: return .notModified
        case .failed: return outcome.blocked ? .blocked : .failed
        }
    }
}

extension FetcherConfiguration {
    /// This configuration, with every redirect the fetcher refuses counted in
    /// `pulse_fetch_redirects_refused_total{reason}`.
    func countingRefusals(in metrics: PulseMetrics) -> FetcherConfiguration {
        var configuration = self
        configuration.redirectRefused = { metrics.recordRedirectRefused(reason: $0.rawValue) }
        return configuration
    }
}

/// A flag shared by the copies of the (value-type) observer.
final class OutageLatch: Sendable {
    private let state = Mutex(false)

    /// Sets the flag; true when it was not set before.
    func set() -> Bool { state.withLock { wasSet in defer { wasSet = true }; return !wasSet } }

    func clear() { state.withLock { $0 = false } }
}
