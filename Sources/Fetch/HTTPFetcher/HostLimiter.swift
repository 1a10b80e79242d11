/// Politeness bookkeeping for the event loop: at most `perHostConnections` transfers in flight per
/// host and request starts spaced `1 / requestsPerSecond` apart per host. Not thread-safe: it is
/// owned and used only by the curl loop thread. Hosts are keyed by name without the port: politeness
/// is owed to the server, whichever port its feeds are on.
struct HostLimiter {
    typealias Instant = ContinuousClock.Instant

    let perHostConnections: Int
    /// Zero means no spacing.
    let minimumInterval: Duration
    private var active: [String: Int] = [:]
    private var lastStart: [String: Instant] = [:]

    init(perHostConnections: Int, requestsPerSecond: Double) {
        self.perHostConnections = max(1, perHostConnections)
        if requestsPerSecond > 0 {
            self.minimumInterval = .nanoseconds(Int64((1_000_000_000 / requestsPerSecond).rounded(.up)))
        } else {
            self.minimumInterval = .zero
        }
    }

    /// The earliest instant a new request to `host` may start, or nil while the host has all its
    /// connections busy (a finishing transfer frees one).
    func earliestStart(for host: String, now: Instant) -> Instant? {
        if active[host, default: 0] >= perHostConnections { return nil }
        guard let last = lastStart[host] else { return now }
        return max(now, last + minimumInterval)
    }

    func inFlight(for host: String) -> Int { active[host, default: 0] }

    /// Hosts with a spacing record (for tests of the pruning).
    var trackedHosts: Int { lastStart.count }

    mutating func started(_ host: String, at instant: Instant) {
        active[host, default: 0] += 1
        lastStart[host] = instant
        if lastStart.count > 4096 { forgetIdle(now: instant) }
    }

    /// Drops spacing records that no longer hold anything back.
    private mutating func forgetIdle(now: Instant) {
        let interval = minimumInterval
        lastStart = lastStart.filter { host, last in active[host] != nil || now - last < interval }
    }

    mutating func finished(_ host: String, now: Instant) {
        let remaining = active[host, default: 1] - 1
        active[host] = remaining > 0 ? remaining : nil
        // Forget hosts once idle past their interval so the tables stay as small as the working set.
        if remaining <= 0, let last = lastStart[host], now - last >= minimumInterval {
            lastStart[host] = nil
        }
    }
}
