import AddressPolicy
import PulseModel

/// How the fetcher fetches. The knobs of feeds.yaml's `fetch:` section start from `FetchSettings`
/// (PulseModel), where each default is said once.
public struct FetcherConfiguration: Sendable {
    public var connectTimeout: Duration
    /// Budget for a whole fetch, redirects included (time queued for politeness is not counted).
    public var totalTimeout: Duration
    /// Abort when fewer than `lowSpeedLimit` bytes/s arrive for `lowSpeedTime`.
    public var lowSpeedLimit: Int
    public var lowSpeedTime: Duration
    public var userAgent: String
    public var globalConcurrency: Int
    public var perHostConnections: Int
    /// Request starts per host per second; 0 or less disables the rate limit.
    public var perHostRequestsPerSecond: Double
    public var maxRedirects: Int = 5
    /// Operator exemptions from the SSRF policy (`--allow-networks`).
    public var allowedNetworks: [CIDR] = []
    /// Longest Retry-After honoured; a server cannot park a source for longer than this.
    public var maxRetryAfter: Duration = .seconds(24 * 3600)

    /// curl `--resolve` entries (`host:port:address`) from `PULSE_RESOLVE`; the address is checked
    /// by the address policy at connect time like any other.
    public var resolve: [String] = []

    /// `PULSE_CA_FILE`: a PEM bundle of CAs to trust (libcurl's CAINFO). Nil keeps libcurl's
    /// default, on Debian /etc/ssl/certs/ca-certificates.crt. OpenSSL also keeps reading the CA
    /// folder (`caPath`, by default /etc/ssl/certs), so with this alone the public CAs stay trusted.
    public var caFile: String?
    /// `PULSE_CA_PATH`: a folder of CAs under their hashed names (libcurl's CAPATH). Nil keeps
    /// libcurl's default, on Debian /etc/ssl/certs; the bundle (`caFile`) is still read too.
    public var caPath: String?

    /// `fetch.allow_https_downgrade`: follow a redirect from an https URL to a plain http one.
    /// Off, such a redirect fails the fetch with `FetchError.insecureRedirect`.
    public var allowHTTPSDowngrade: Bool
    /// Told of every redirect the fetcher refused (the service counts them in its metrics).
    public var redirectRefused: (@Sendable (RedirectRefusal) -> Void)?

    #if DEBUG
    /// Test-only: lets tests talk to their own server on 127.0.0.1 / ::1. Internal, so only
    /// `@testable import` reaches it (never feeds.yaml or the environment), and it does not exist in
    /// release builds at all.
    var allowLoopbackForTesting = false
    /// Test-only: curl `--resolve` entries (`host:port:address`), so pages with public-looking
    /// URLs (which the feed parser requires of article links) can be served from loopback.
    var resolveForTesting: [String] = []
    #endif

    /// The `fetch:` knobs of `settings` (the built-in defaults when none are given).
    public init(_ settings: FetchSettings = FetchSettings()) {
        connectTimeout = .seconds(settings.connectTimeoutSeconds)
        totalTimeout = .seconds(settings.totalTimeoutSeconds)
        lowSpeedLimit = settings.lowSpeedBytesPerSecond
        lowSpeedTime = .seconds(settings.lowSpeedSeconds)
        userAgent = settings.userAgent
        globalConcurrency = settings.maxConcurrentFetches
        perHostConnections = settings.maxPerHost
        perHostRequestsPerSecond = settings.perHostRequestsPerSecond
        allowHTTPSDowngrade = settings.allowHTTPSDowngrade
    }

    /// Networks exempt from the address policy for this fetcher.
    var exemptNetworks: [CIDR] {
        var networks = allowedNetworks
        #if DEBUG
        if allowLoopbackForTesting {
            networks.append(CIDR(string: "127.0.0.0/8")!)
            networks.append(CIDR(string: "::1/128")!)
        }
        #endif
        return networks
    }
}

/// Why a redirect was not followed; the raw value is the `reason` label of
/// `pulse_fetch_redirects_refused_total`.
public enum RedirectRefusal: String, Sendable, CaseIterable {
    /// From an https URL to a plain http one, with `allowHTTPSDowngrade` off.
    case httpsToHTTP = "https_to_http"
}
