/// Operational knobs for the HTTP layer: feeds.yaml's `fetch:` section, and the fetcher's defaults
/// (`FetcherConfiguration(_:)` takes them from here, so each default is said once).
public struct FetchSettings: Sendable, Equatable {
    public static let defaultUserAgent = "pulse-ingest/1.0 (+https://github.com/pulse-news/pulse-ingest)"

    public var userAgent: String = FetchSettings.defaultUserAgent
    public var connectTimeoutSeconds: Int = 10
    public var totalTimeoutSeconds: Int = 60
    /// Abort a transfer slower than this many bytes/s for `lowSpeedSeconds`: 100, the value the
    /// service has always run with, lenient with slow intranet and small servers.
    public var lowSpeedBytesPerSecond: Int = 100
    public var lowSpeedSeconds: Int = 30
    public var maxConcurrentFetches: Int = 16
    public var maxPerHost: Int = 2
    public var perHostRequestsPerSecond: Double = 2
    public var feedBodyLimitBytes: Int = 16_777_216
    public var pageBodyLimitBytes: Int = 5_242_880
    public var imageHeadLimitBytes: Int = 262_144
    public var maxItemsPerFeed: Int = 500
    /// Follow a redirect from an https URL to a plain http one (refused by default).
    public var allowHTTPSDowngrade: Bool = false

    /// The built-in defaults; feeds.yaml's `fetch:` section sets what it names.
    public init() {}
}
