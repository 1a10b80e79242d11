import FoundationEssentials
import Prometheus
import Synchronization

/// How one feed fetch ended; the `outcome` label of `pulse_fetches_total`.
/// An enum (not a free string) so the label's cardinality stays fixed.
public enum FetchOutcome: String, Sendable, CaseIterable {
    case ok
    case notModified = "not_modified"
    case failed
    case blocked
    case timeout
    case tooLarge = "too_large"
    case rateLimited = "rate_limited"
    case httpError = "http_error"
    case circuitOpen = "circuit_open"
}

/// The daemon's Prometheus metrics.
///
/// Uses swift-prometheus' `PrometheusCollectorRegistry` directly rather than bootstrapping
/// swift-metrics' global `MetricsSystem`: that bootstrap is once per process (tests need a fresh
/// registry each), nothing else in the daemon reports through swift-metrics, and the registry API
/// lets us fix histogram buckets and HELP text per metric.
public final class PulseMetrics: Sendable {
    public let registry: PrometheusCollectorRegistry

    /// Drop reasons are free-form strings from the pipeline; past this many distinct ones new
    /// reasons count as "other" so a bug cannot explode the series count.
    public static let maxDropReasons = 32
    /// Reasons the ingestion pass reports today (see Ingestion's SourceOutcome); created at 0 up front.
    public static let standardDropReasons = ["duplicate", "invalid", "too_old"]
    /// Reasons the fetcher refuses a redirect for (HTTPFetcher's `RedirectRefusal`); created at 0 up front.
    public static let redirectRefusalReasons = ["https_to_http"]

    private let fetchesByOutcome: [FetchOutcome: Counter]
    private let fetchDuration: DurationHistogram
    private let parseDuration: DurationHistogram
    private let enrichDuration: DurationHistogram
    private let fetchedBytes: Counter
    private let itemsSeen: Counter
    private let itemsInserted: Counter
    private let sourcesDue: Gauge
    private let sourcesClaimed: Gauge
    private let sourcesCircuitOpen: Gauge
    private let sourcesActive: Gauge
    private let sourcesFailing: Gauge
    private let fleetGaugesAge: Gauge
    private let fleetGaugesEstimated: Gauge
    private let databaseErrors: Counter
    private let databaseUp: Gauge
    private let storesFailing: Gauge
    private let languageDisagreements: Counter
    private let lastSuccessfulPass: Gauge
    private let knownDropReasons = Mutex<Set<String>>([])

    static let networkBuckets: [Duration] = [
        .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1),
        .milliseconds(2500), .seconds(5), .seconds(10), .seconds(30), .seconds(60),
    ]
    static let cpuBuckets: [Duration] = [
        .milliseconds(1), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
        .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500),
    ]

    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
        var byOutcome: [FetchOutcome: Counter] = [:]
        // Pre-create every outcome so each series exists at 0 (rate() needs the starting point).
        for outcome in FetchOutcome.allCases {
            byOutcome[outcome] = registry.counter("fetches", help: "Feed fetches by outcome.", labels: [("outcome", outcome.rawValue)])
        }
        fetchesByOutcome = byOutcome
        fetchDuration = registry.histogram("fetch_duration", help: "Wall time of one feed fetch including redirects.",
                                           buckets: Self.networkBuckets)
        parseDuration = registry.histogram("parse_duration", help: "Time to parse one fetched feed document.",
                                           buckets: Self.cpuBuckets)
        enrichDuration = registry.histogram(
            "enrich_duration", help: "Time to enrich one new article (page fetch, og:image, readability, language).",
            buckets: Self.networkBuckets)
        fetchedBytes = registry.counter("fetched_bytes", help: "Response body bytes received from feeds.")
        itemsSeen = registry.counter("items_seen", help: "Feed entries seen in parsed feeds.")
        itemsInserted = registry.counter("items_inserted", help: "Articles newly inserted into the database.")
        // The fleet's figures: the same in every daemon (one computes them per 15 s for all).
        sourcesDue = registry.gauge(
            "sources_due", help: "Active sources due and waiting to be claimed (the whole fleet; estimated above 10,000).")
        sourcesClaimed = registry.gauge("sources_claimed", help: "Sources claimed by this instance at the last tick.")
        sourcesCircuitOpen = registry.gauge(
            "sources_circuit_open", help: "Active sources whose circuit breaker is open (the whole fleet; estimated above 10,000).")
        sourcesActive = registry.gauge("sources_active", help: "Active sources (the whole fleet).")
        sourcesFailing = registry.gauge(
            "sources_failing", help: "Active sources whose last fetch failed (the whole fleet; estimated above 10,000).")
        fleetGaugesAge = registry.gauge(
            "fleet_gauges_age", unit: "seconds",
            help: "Age of the fleet figures (pulse_sources_due and siblings) when this instance last read them.")
        fleetGaugesEstimated = registry.gauge(
            "fleet_gauges_estimated", help: "1 when a fleet figure passed 10,000 and was estimated from a sample.")
        languageDisagreements = registry.counter(
            "language_disagreements", help: "Articles whose detected language differs from the source's configured one.")
        databaseErrors = registry.counter("database_errors", help: "Database errors (connection or query).")
        databaseUp = registry.gauge(
            "database_up", help: "1 while the last database contact (a claim) succeeded, 0 while the database cannot be reached.")
        storesFailing = registry.gauge(
            "stores_failing",
            help: "1 while every store of the last pass that stored failed on the database (read-only, locked, timing out).")
        lastSuccessfulPass = registry.gauge(
            "last_successful_pass_timestamp", unit: "seconds",
            help: "Unix time of the last fetch pass that completed without a fatal error.")
        for reason in Self.standardDropReasons {
            _ = dropCounter(reason: reason)
        }
        for reason in Self.redirectRefusalReasons {
            _ = redirectRefusalCounter(reason: reason)
        }
    }

    public func recordFetch(outcome: FetchOutcome, duration: Duration, bytes: Int = 0) {
        fetchesByOutcome[outcome]?.increment()
        fetchDuration.record(duration)
        if bytes > 0 { fetchedBytes.increment(by: Int64(bytes)) }
    }

    public func recordParse(duration: Duration) {
        parseDuration.record(duration)
    }

    public func recordEnrich(duration: Duration) {
        enrichDuration.record(duration)
    }

    public func recordItems(seen: Int, inserted: Int, droppedByReason: [String: Int] = [:]) {
        if seen > 0 { itemsSeen.increment(by: Int64(seen)) }
        if inserted > 0 { itemsInserted.increment(by: Int64(inserted)) }
        for (reason, count) in droppedByReason where count > 0 {
            dropCounter(reason: reason).increment(by: Int64(count))
        }
    }

    /// The fleet's figures as last read, and how old they were then.
    public func setFleetGauges(active: Int, due: Int, circuitOpen: Int, failing: Int, estimated: Bool, age: Duration) {
        sourcesActive.set(Double(active))
        sourcesDue.set(Double(due))
        sourcesCircuitOpen.set(Double(circuitOpen))
        sourcesFailing.set(Double(failing))
        fleetGaugesEstimated.set(Double(estimated ? 1 : 0))
        fleetGaugesAge.set(Double(age.components.seconds) + Double(age.components.attoseconds) / 1e18)
    }

    /// Sources this instance claimed in its last pass.
    public func setClaimed(_ claimed: Int) {
        sourcesClaimed.set(Double(claimed))
    }

    public func recordLanguageDisagreements(_ count: Int) {
        if count > 0 { languageDisagreements.increment(by: Int64(count)) }
    }

    /// Feeds or pages refused by the parse limits (size, shape, CPU or memory budget).
    public func recordParseRefusals(kind: String, count: Int) {
        guard count > 0 else { return }
        registry.counter("parse_refusals", help: "Feeds and pages refused by the parse limits (size, shape, CPU, memory), by kind.",
                         labels: [("kind", Self.labelValue(kind))]).increment(by: Int64(count))
    }

    /// A redirect the fetcher refused to follow (a feed's or an article page's).
    public func recordRedirectRefused(reason: String) {
        redirectRefusalCounter(reason: reason).increment()
    }

    public func recordDatabaseError() {
        databaseErrors.increment()
    }

    /// The two database conditions `/readyz` reports (the body says which and why).
    public func setDatabaseUp(_ up: Bool) {
        databaseUp.set(Double(up ? 1 : 0))
    }

    public func setStoresFailing(_ failing: Bool) {
        storesFailing.set(Double(failing ? 1 : 0))
    }

    public func markPassSucceeded(at date: Date = Date()) {
        lastSuccessfulPass.set(date.timeIntervalSince1970)
    }

    /// The Prometheus text exposition format (version 0.0.4).
    public func exposition() -> String {
        registry.emitToString()
    }

    private func dropCounter(reason: String) -> Counter {
        let cleaned = Self.labelValue(reason)
        let label = knownDropReasons.withLock { known -> String in
            if known.contains(cleaned) { return cleaned }
            guard known.count < Self.maxDropReasons else { return "other" }
            known.insert(cleaned)
            return cleaned
        }
        // The registry returns the existing counter for a name and label set it has seen.
        return registry.counter("items_dropped", help: "Feed entries not stored, by reason.", labels: [("reason", label)])
    }

    private func redirectRefusalCounter(reason: String) -> Counter {
        registry.counter("fetch_redirects_refused",
                         help: "Redirects the fetcher refused to follow (feeds and article pages), by reason.",
                         labels: [("reason", Self.labelValue(reason))])
    }

    /// Label values limited to `[a-z0-9_]`, at most 64 characters.
    static func labelValue(_ raw: String) -> String {
        var out = ""
        for scalar in raw.lowercased().unicodeScalars.prefix(64) {
            switch scalar {
            case "a"..."z", "0"..."9", "_": out.unicodeScalars.append(scalar)
            default: out.append("_")
            }
        }
        return out.isEmpty ? "unknown" : out
    }
}

/// `pulse_<name>[_<unit>]` series in a registry (counters end in `_total`); a descriptor rather
/// than a flat name is what the registry's non-deprecated API takes.
extension PrometheusCollectorRegistry {
    func counter(_ name: String, help: String, labels: [(String, String)] = []) -> Counter {
        makeCounter(descriptor: Self.pulse(name, unit: "total", help: help), labels: labels)
    }

    func gauge(_ name: String, unit: String = "", help: String, labels: [(String, String)] = []) -> Gauge {
        makeGauge(descriptor: Self.pulse(name, unit: unit, help: help), labels: labels)
    }

    func histogram(_ name: String, help: String, buckets: [Duration]) -> DurationHistogram {
        makeDurationHistogram(descriptor: Self.pulse(name, unit: "seconds", help: help), buckets: buckets)
    }

    private static func pulse(_ name: String, unit: String, help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "pulse", metricName: name, unitName: unit, helpText: help)
    }
}
