import CCurl
import PulseModel
import FoundationEssentials
import TextSupport

/// Interprets response header values the fetcher hands back to its callers.
enum HeaderValues {
    /// Retry-After is either delta-seconds or an HTTP-date (RFC 9110 §10.2.3). Dates go through
    /// libcurl's `curl_getdate`, which reads all three HTTP date formats. Clamped to [0, `limit`].
    static func retryAfter(_ raw: String?, now: Date = Date(), limit: Duration) -> Duration? {
        guard let value = raw.map({ TextScan.trimming($0) { $0 == " " || $0 == "\t" } }), !value.isEmpty else { return nil }
        var seconds: Int64
        if value.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            guard value.utf8.count <= 12, let n = Int64(value) else { return limit }
            seconds = n
        } else {
            let stamp = value.withCString { curl_getdate($0, nil) }
            guard stamp > 0 else { return nil }
            seconds = Int64(stamp) - Int64(now.timeIntervalSince1970.rounded(.down))
        }
        seconds = max(0, seconds)
        let limitSeconds = limit.components.seconds
        return .seconds(min(seconds, limitSeconds))
    }

    /// `max-age` from Cache-Control; `no-store`/`no-cache` count as zero.
    static func cacheMaxAge(_ raw: String?) -> Duration? {
        guard let raw else { return nil }
        var result: Duration?
        for directive in raw.split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1)
            let name = TextScan.trimming(parts[0]) { $0 == " " || $0 == "\t" }.lowercased()
            if name == "no-store" || name == "no-cache" { return .zero }
            if name == "max-age", parts.count == 2 {
                let digits = TextScan.trimming(parts[1]) { $0 == " " || $0 == "\t" || $0 == "\"" }
                if let n = Int64(digits), n >= 0 { result = .seconds(n) }
            }
        }
        return result
    }
}

