import Synchronization

/// What `/readyz` reports.
public struct Readiness: Sendable, Equatable {
    public var isReady: Bool
    /// One line for operators; the 503 body when not ready.
    public var reason: String

    public static let ready = Readiness(isReady: true, reason: "ready")

    public static func notReady(_ reason: String) -> Readiness {
        Readiness(isReady: false, reason: reason)
    }
}

/// Readiness the daemon feeds as it works, so `/readyz` answers from memory: the HTTP thread
/// never waits on the database. Ready = the last database contact succeeded, the last pass that
/// stored anything stored something (a database that answers claims but refuses writes, as when
/// read-only, locked or timing out, is not serving), and the scheduler ticked within `maxTickAge`.
public final class ReadinessTracker: Sendable {
    private struct State {
        var databaseError: String? = "database not checked yet"
        var storeError: String?
        var lastTick: ContinuousClock.Instant?
    }

    public let maxTickAge: Duration
    private let state = Mutex(State())

    public init(maxTickAge: Duration = .seconds(180)) {
        self.maxTickAge = maxTickAge
    }

    /// `error == nil` means reachable.
    public func recordDatabase(error: String?) {
        state.withLock { $0.databaseError = error.map { $0.isEmpty ? "database unreachable" : $0 } }
    }

    /// After a pass that tried to store: `error` is the first store failure when every store
    /// failed, nil when any succeeded.
    public func recordStores(error: String?) {
        state.withLock { $0.storeError = error }
    }

    public func recordSchedulerTick(at instant: ContinuousClock.Instant = .now) {
        state.withLock { $0.lastTick = instant }
    }

    public func current(now: ContinuousClock.Instant = .now) -> Readiness {
        let snapshot = state.withLock { $0 }
        if let error = snapshot.databaseError {
            return .notReady("database: \(error)")
        }
        if let error = snapshot.storeError {
            return .notReady("every store of the last pass failed: \(error)")
        }
        guard let tick = snapshot.lastTick else {
            return .notReady("scheduler has not ticked yet")
        }
        let age = now - tick
        if age > maxTickAge {
            return .notReady("scheduler last ticked \(age.components.seconds)s ago (limit \(maxTickAge.components.seconds)s)")
        }
        return .ready
    }
}
