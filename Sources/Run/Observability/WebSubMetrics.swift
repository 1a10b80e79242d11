import Prometheus

/// The WebSub metrics, in the daemon's registry: subscriptions by state (fleet-wide, from the
/// database), pushes received, stored and rejected by reason, and push-to-row latency.
public final class WebSubMetrics: Sendable {
    public static let states = ["pending", "subscribed", "expired", "unsubscribed", "denied", "failed"]
    /// Reasons the listener and the receiver report; created at 0 up front.
    public static let rejectReasons = ["missing_signature", "bad_signature", "malformed_signature", "not_subscribed",
                                       "unknown_topic", "too_large", "read_failed", "queue_full", "unparseable", "database"]

    private let registry: PrometheusCollectorRegistry
    private let received: Counter
    private let stored: Counter
    private let storedRows: Counter
    private let latency: DurationHistogram
    private let byState: [String: Gauge]

    static let latencyBuckets: [Duration] = [
        .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250),
        .milliseconds(500), .seconds(1), .seconds(2), .seconds(5), .seconds(10),
    ]

    public init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
        received = registry.counter("websub_pushes_received", help: "WebSub pushes (POSTs) for a known source.")
        stored = registry.counter("websub_pushes_stored", help: "WebSub pushes whose entries were stored.")
        storedRows = registry.counter("websub_push_rows", help: "Articles newly inserted from WebSub pushes.")
        latency = registry.histogram("websub_push_to_row", help: "Time from a push's arrival to its rows being committed.",
                                     buckets: Self.latencyBuckets)
        var gauges: [String: Gauge] = [:]
        for state in Self.states {
            gauges[state] = registry.gauge("websub_subscriptions",
                                           help: "WebSub subscriptions by state (all daemons), read every tick.",
                                           labels: [("state", state)])
        }
        byState = gauges
        for reason in Self.rejectReasons { _ = rejectedCounter(reason) }
    }

    public func pushReceived() { received.increment() }

    public func pushRejected(reason: String) { rejectedCounter(reason).increment() }

    public func pushStored(inserted: Int, latency duration: Duration) {
        stored.increment()
        if inserted > 0 { storedRows.increment(by: Int64(inserted)) }
        latency.record(duration)
    }

    public func verification(mode: String, accepted: Bool) {
        registry.counter("websub_verifications", help: "Hub verification requests, by mode and whether one was pending.",
                         labels: [("mode", PulseMetrics.labelValue(mode)), ("accepted", accepted ? "true" : "false")]).increment()
    }

    public func setSubscriptions(_ counts: [String: Int]) {
        for (state, gauge) in byState { gauge.set(Double(counts[state] ?? 0)) }
    }

    private func rejectedCounter(_ reason: String) -> Counter {
        let label = Self.rejectReasons.contains(reason) ? reason : "other"
        return registry.counter("websub_pushes_rejected", help: "WebSub pushes that stored nothing, by reason.",
                                labels: [("reason", label)])
    }
}
