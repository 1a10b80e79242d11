import ArticleStore
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
    /// The claims since the last summary line: the service logs one line per round over the due
    /// sources (when it goes idle, or each minute under constant load), not one per claim.
    let round = RoundTally()

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
        logger.debug("\(summary.line)")
        if let round = round.add(summary, flushAfter: .seconds(60)) { report(round) }
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

    func daemonIdle() {
        if let round = round.flush() { report(round) }
        for observer in extra { observer.daemonIdle() }
    }

    /// One line for a round, and a warning when every source in it failed (then the cause is
    /// rarely the feeds: the network or the database).
    private func report(_ round: PassSummary) {
        if let notice = round.allFailedNotice {
            logger.warning("\(notice)")
        } else {
            logger.info("\(round.line)")
        }
    }

    func fleetGaugesRead(_ reading: FleetGaugeReading) {
        let gauges = reading.gauges
        metrics.setFleetGauges(active: gauges.active, due: gauges.due, circuitOpen: gauges.circuitOpen,
                               failing: gauges.failing, estimated: gauges.estimated, age: reading.age)
        for observer in extra { observer.fleetGaugesRead(reading) }
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

/// The outcomes of the claims since the last summary, shared by the copies of the (value-type)
/// observer.
final class RoundTally: Sendable {
    private let state = Mutex<(summary: PassSummary, started: ContinuousClock.Instant?)>((PassSummary(), nil))

    /// Adds a claim's outcomes; returns the round when it has run `flushAfter` or more.
    func add(_ pass: PassSummary, flushAfter: Duration) -> PassSummary? {
        let started = state.withLock { state in
            state.summary.outcomes += pass.outcomes
            state.summary.interrupted = state.summary.interrupted || pass.interrupted
            if state.started == nil { state.started = ContinuousClock.now - (pass.duration ?? .zero) }
            return state.started!
        }
        return ContinuousClock.now - started >= flushAfter ? flush() : nil
    }

    /// The round so far (nil when empty), with its wall time; starts the next one.
    func flush() -> PassSummary? {
        state.withLock { state in
            defer { state = (PassSummary(), nil) }
            guard !state.summary.outcomes.isEmpty else { return nil }
            var summary = state.summary
            summary.duration = state.started.map { ContinuousClock.now - $0 }
            return summary
        }
    }
}
