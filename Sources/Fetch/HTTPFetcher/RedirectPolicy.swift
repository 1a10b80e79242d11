import AddressPolicy
import CCurl

/// One hop's target after it passed the scheme and IP-literal checks.
struct HopTarget: Sendable, Equatable {
    /// The URL as libcurl normalised it (this is what is fetched and reported as `finalURL`).
    let url: String
    /// Lowercased host, brackets kept for IPv6 literals; also the politeness key.
    let host: String
}

/// Checks applied to the first URL and to every redirect target before anything is sent:
/// http(s) only and no IP-literal host the address policy refuses (obfuscated forms included).
/// Host names are checked later, at connect time, against the address libcurl actually dials.
enum RedirectPolicy {
    static let redirectStatuses: Set<Int> = [301, 302, 303, 307, 308]

    static func validate(_ url: String, exempt: [CIDR]) throws(FetchError) -> HopTarget {
        // Scheme first, textually, so `javascript:` or `data:` (which have no host and fail URL
        // parsing) are still reported as what they are.
        if let scheme = scheme(of: url), scheme != "http", scheme != "https" { throw .badScheme(url: url) }
        guard let handle = curl_url() else { throw .other(code: Int(CURLE_OUT_OF_MEMORY.rawValue), message: "out of memory") }
        defer { curl_url_cleanup(handle) }
        // Parse any scheme so that a non-http one is reported as badScheme, not as a parse error.
        let rc = curl_url_set(handle, CURLUPART_URL, url, UInt32(CURLU_NON_SUPPORT_SCHEME))
        guard rc == CURLUE_OK else {
            if rc == CURLUE_BAD_SCHEME || rc == CURLUE_UNSUPPORTED_SCHEME { throw .badScheme(url: url) }
            throw .other(code: Int(CURLE_URL_MALFORMAT.rawValue), message: "malformed URL \(url)")
        }
        guard let scheme = part(handle, CURLUPART_SCHEME)?.lowercased(), scheme == "http" || scheme == "https" else {
            throw .badScheme(url: url)
        }
        guard let host = part(handle, CURLUPART_HOST)?.lowercased(), !host.isEmpty,
              let normalised = part(handle, CURLUPART_URL)
        else { throw .other(code: Int(CURLE_URL_MALFORMAT.rawValue), message: "URL has no host: \(url)") }

        // A zone id ties an address to one of our interfaces; no feed URL has a reason to carry one.
        if part(handle, CURLUPART_ZONEID) != nil {
            throw .blockedAddress(ip: host, reason: "IPv6 zone ids are not allowed")
        }
        if let literal = AddressPolicy.literalAddress(inHost: host),
           case .blocked(let reason) = AddressPolicy.verdict(for: literal, allowing: exempt) {
            throw .blockedAddress(ip: literal.description, reason: reason)
        }
        return HopTarget(url: normalised, host: host)
    }

    /// A redirect from an https URL to a plain http one (`to` is absolute, as libcurl resolves it).
    static func isDowngrade(from: String, to: String) -> Bool {
        scheme(of: from) == "https" && scheme(of: to) == "http"
    }

    /// RFC 3986 scheme: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":" (lowercased).
    static func scheme(of url: String) -> String? {
        guard let colon = url.firstIndex(of: ":") else { return nil }
        let candidate = url[..<colon]
        func isAlpha(_ c: UInt8) -> Bool { (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7a }
        func isSchemeChar(_ c: UInt8) -> Bool {
            isAlpha(c) || (c >= 0x30 && c <= 0x39) || c == UInt8(ascii: "+") || c == UInt8(ascii: "-") || c == UInt8(ascii: ".")
        }
        guard let first = candidate.utf8.first, isAlpha(first), candidate.utf8.allSatisfy(isSchemeChar) else { return nil }
        return candidate.lowercased()
    }

    private static func part(_ handle: OpaquePointer, _ which: CURLUPart) -> String? {
        var out: UnsafeMutablePointer<CChar>?
        guard curl_url_get(handle, which, &out, 0) == CURLUE_OK, let out else { return nil }
        defer { curl_free(out) }
        return String(cString: out)
    }
}
