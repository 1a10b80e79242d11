/// Operational knobs for the HTTP layer: feeds.yaml's `fetch:` section, and the fetcher's defaults
/// (`FetcherConfiguration(_:)` takes them from here, so each default is said once).
public struct FetchSettings: Sendable, Equatable {
    public static let defaultUserAgent = "pulse-ingest/1.0 (+https://github.com/pulse-news/pulse-ingest)"

    public var userAgent: String
    public var connectTimeoutSeconds: Int
    public var totalTimeoutSeconds: Int
    /// Abort a transfer slower than this many bytes/s for `lowSpeedSeconds`.
    public var lowSpeedBytesPerSecond: Int
    public var lowSpeedSeconds: Int
    public var maxConcurrentFetches: Int
    public var maxPerHost: Int
    public var perHostRequestsPerSecond: Double
    public var feedBodyLimitBytes: Int
    public var pageBodyLimitBytes: Int
    public var imageHeadLimitBytes: Int
    public var maxItemsPerFeed: Int
    /// Follow a redirect from an https URL to a plain http one (refused by default).
    public var allowHTTPSDowngrade: Bool

    public init(
        userAgent: String = FetchSettings.defaultUserAgent,
        connectTimeoutSeconds: Int = 10,
        totalTimeoutSeconds: Int = 60,
        // 100, not the 512 the fetcher once had of its own: the value the service has always run
        // with (the mapping overrode the fetcher's), lenient with slow intranet and small servers.
        lowSpeedBytesPerSecond: Int = 100,
        lowSpeedSeconds: Int = 30,
        maxConcurrentFetches: Int = 16,
        maxPerHost: Int = 2,
        perHostRequestsPerSecond: Double = 2,
        feedBodyLimitBytes: Int = 16_777_216,
        pageBodyLimitBytes: Int = 5_242_880,
        imageHeadLimitBytes: Int = 262_144,
        maxItemsPerFeed: Int = 500,
        allowHTTPSDowngrade: Bool = false
    ) {
        self.userAgent = userAgent
        self.connectTimeoutSeconds = connectTimeoutSeconds
        self.totalTimeoutSeconds = totalTimeoutSeconds
        self.lowSpeedBytesPerSecond = lowSpeedBytesPerSecond
        self.lowSpeedSeconds = lowSpeedSeconds
        self.maxConcurrentFetches = maxConcurrentFetches
        self.maxPerHost = maxPerHost
        self.perHostRequestsPerSecond = perHostRequestsPerSecond
        self.feedBodyLimitBytes = feedBodyLimitBytes
        self.pageBodyLimitBytes = pageBodyLimitBytes
        self.imageHeadLimitBytes = imageHeadLimitBytes
        self.maxItemsPerFeed = maxItemsPerFeed
        self.allowHTTPSDowngrade = allowHTTPSDowngrade
    }
}
