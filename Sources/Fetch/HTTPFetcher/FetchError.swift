/// Why a download failed, with a one-line message an operator can act on.
public enum FetchError: Error, Sendable, Hashable, CustomStringConvertible {
    case dns(host: String)
    case refused(host: String)
    case tls(message: String)
    case timeout
    case lowSpeed
    /// The decoded body (or the declared Content-Length) went past `limit` bytes.
    case tooLarge(limit: Int)
    case blockedAddress(ip: String, reason: String)
    case badScheme(url: String)
    case tooManyRedirects(limit: Int)
    /// A redirect from https to plain http, refused (`FetcherConfiguration.allowHTTPSDowngrade`).
    case insecureRedirect(url: String)
    case httpStatus(code: Int)
    /// 429, or 503 with Retry-After; the caller should not fetch this source again before then.
    case rateLimited(retryAfter: Duration?)
    case cancelled
    case other(code: Int, message: String)

    public var description: String {
        switch self {
        case .dns(let host): "DNS lookup failed for \(host)"
        case .refused(let host): "connection to \(host) refused or unreachable"
        case .tls(let message): "TLS handshake or certificate failure: \(message)"
        case .timeout: "timed out"
        case .lowSpeed: "transfer stalled below the minimum speed"
        case .tooLarge(let limit): "response body exceeds the \(limit)-byte limit"
        case .blockedAddress(let ip, let reason): "refused to connect to \(ip): \(reason)"
        case .badScheme(let url): "only http and https URLs are fetched, not \(FetchError.clip(url))"
        case .tooManyRedirects(let limit): "more than \(limit) redirects"
        case .insecureRedirect(let url): "refused redirect from https to plain http: \(FetchError.clip(url))"
        case .httpStatus(let code): "HTTP status \(code)"
        case .rateLimited(let retryAfter?): "rate limited by the server; retry after \(retryAfter.components.seconds)s"
        case .rateLimited(nil): "rate limited by the server"
        case .cancelled: "cancelled"
        case .other(let code, let message): "transfer failed (curl \(code)): \(FetchError.clip(message))"
        }
    }

    /// Keeps operator messages on one short line whatever a server put in a URL or message.
    static func clip(_ text: String) -> String {
        let cleaned = String(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7f ? " " : Character($0) })
        return cleaned.count > 200 ? String(cleaned.prefix(200)) + "…" : cleaned
    }
}
