import FoundationEssentials
import Glibc

/// When a source is fetched next. The first interval is the configured one; after that it follows
/// how often the feed really publishes (items per day over the last week), clamped to the
/// configured bounds, lengthened (never shortened) by server hints, and jittered by ±10 % so
/// sources on one host do not fire together.
public struct SchedulePolicy: Sendable, Equatable {
    public var minimumInterval: Duration
    public var maximumInterval: Duration
    public var jitterFraction: Double
    /// Fetches per average gap between items: 2 means a new item waits half a gap on average.
    public var fetchesPerItemGap: Double

    public init(minimumInterval: Duration = .seconds(15 * 60), maximumInterval: Duration = .seconds(24 * 3600),
                jitterFraction: Double = 0.10, fetchesPerItemGap: Double = 2) {
        self.minimumInterval = minimumInterval
        self.maximumInterval = max(maximumInterval, minimumInterval)
        self.jitterFraction = jitterFraction
        self.fetchesPerItemGap = fetchesPerItemGap
    }

    /// What the server and the feed said about polling.
    public struct Hints: Sendable, Equatable {
        public var retryAfter: Duration?
        public var cacheMaxAge: Duration?
        public var ttlMinutes: Int?

        public init(retryAfter: Duration? = nil, cacheMaxAge: Duration? = nil, ttlMinutes: Int? = nil) {
            self.retryAfter = retryAfter
            self.cacheMaxAge = cacheMaxAge
            self.ttlMinutes = ttlMinutes
        }
    }

    /// The interval before jitter. `itemsLastWeek` nil means no history yet (first fetch).
    public func interval(configuredHours: Int, itemsLastWeek: Int?, hints: Hints = .init()) -> Duration {
        var interval: Duration
        if let items = itemsLastWeek {
            if items <= 0 {
                interval = maximumInterval
            } else {
                let gapSeconds = 7 * 86_400 / Double(items)
                interval = .seconds(gapSeconds / fetchesPerItemGap)
            }
        } else {
            interval = .seconds(max(configuredHours, 1) * 3600)
        }
        interval = clamp(interval)
        // Hints lengthen only; the ceiling still holds so a bad header cannot park a source.
        for hint in [hints.retryAfter, hints.cacheMaxAge, hints.ttlMinutes.map { Duration.seconds($0 * 60) }] {
            if let hint, hint > interval { interval = min(hint, maximumInterval) }
        }
        return interval
    }

    /// `interval` scaled by a factor in [1 - jitter, 1 + jitter] from `unit` in [0, 1], never
    /// below the floor.
    public func jittered(_ interval: Duration, unit: Double) -> Duration {
        let factor = 1 - jitterFraction + 2 * jitterFraction * min(max(unit, 0), 1)
        return max(interval * factor, minimumInterval)
    }

    public func nextDue(after now: Date, configuredHours: Int, itemsLastWeek: Int?, hints: Hints = .init(),
                        unit: Double = Double.random(in: 0...1)) -> Date {
        let chosen = jittered(interval(configuredHours: configuredHours, itemsLastWeek: itemsLastWeek, hints: hints),
                              unit: unit)
        return now.addingTimeInterval(chosen.seconds)
    }

    /// After a failure below the circuit threshold: try again after the floor.
    public func retryAfterFailure(now: Date) -> Date { now.addingTimeInterval(minimumInterval.seconds) }

    func clamp(_ interval: Duration) -> Duration { min(max(interval, minimumInterval), maximumInterval) }
}
