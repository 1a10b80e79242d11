/// `websub:` in feeds.yaml: the push subscriber (W3C WebSub). Off by default; when on, the service
/// runs a listener on `listen` (behind the operator's TLS reverse proxy) and subscribes each source
/// whose feed names a hub, with `{callback_url}/{slug}/{token}` as its callback (the token is
/// random per subscription).
public struct WebSubSettings: Sendable, Equatable {
    public var enabled: Bool = false
    /// The public URL prefix the hub calls back (no query, no fragment, no trailing slash).
    public var callbackURL: String = ""
    /// Where the listener binds: an IP literal and a port (`127.0.0.1:8089`, `[::1]:8089`).
    public var listenHost: String = "127.0.0.1"
    public var listenPort: Int = 8089
    /// The lease asked of the hub (it may grant another); renewal starts before it ends.
    public var leaseSeconds: Int = 864_000
    /// The poll interval of a source while its subscription is live: polling stays the safety
    /// net. Nil means the schedule's maximum interval.
    public var subscribedPollHours: Int?
    /// Subscribe to `http://` hubs too: their subscription requests carry the secret in clear
    /// text, so anyone on the path could forge pushes (intranets and tests only).
    public var allowHTTPHubs: Bool = false

    public static let leaseRange = 300...(30 * 86_400)

    /// Off, with the built-in defaults; feeds.yaml's `websub:` section sets what it names.
    public init() {}

    /// The poll interval of a subscribed source, in hours.
    public func subscribedPollHours(schedule: ScheduleSettings) -> Int {
        subscribedPollHours ?? schedule.maxIntervalHours
    }

    /// Why `url` cannot be a callback prefix, nil when it can. The hub calls it from the internet,
    /// so it must be an absolute http(s) URL with a host, and the slug is appended as a path segment.
    static func callbackProblem(_ url: String) -> String? {
        let lower = url.lowercased()
        guard lower.hasPrefix("https://") || lower.hasPrefix("http://") else {
            return "'callback_url' must be an absolute http(s) URL"
        }
        let rest = lower.drop { $0 != "/" }.dropFirst(2)
        let host = rest.prefix { $0 != "/" && $0 != ":" }
        if host.isEmpty { return "'callback_url' has no host" }
        if url.contains("?") || url.contains("#") { return "'callback_url' must have no query or fragment" }
        if url.hasSuffix("/") { return "'callback_url' must not end with '/' (the source's slug is appended)" }
        if url.contains("@") { return "'callback_url' must not contain userinfo" }
        if url.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F || !$0.isASCII }) {
            return "'callback_url' must be printable ASCII without spaces"
        }
        if url.utf8.count > 1024 { return "'callback_url' must be at most 1024 characters" }
        return nil
    }
}
