// Port of Go's net/url `Parse` and `(*URL).String` (Go 1.19, the reference toolchain whose output
// the tests pin). Hand-written: the canonical form stored by the old Go worker depends on every
// quirk of this parser (opaque URLs, RawPath hints, ForceQuery, OmitHost), which no Swift
// library reproduces. Fields hold raw bytes, exactly like Go strings.

/// Go's `Userinfo`: decoded user name and optional password.
struct GoUserinfo: Equatable, Sendable {
    var username: [UInt8]
    var password: [UInt8]?

    /// Go's `(*Userinfo).String`: re-escaped `user[:password]`.
    func encoded() -> [UInt8] {
        var out = GoEscaping.escape(username, .userPassword)
        if let password {
            out.append(UInt8(ascii: ":"))
            out += GoEscaping.escape(password, .userPassword)
        }
        return out
    }
}

/// Go's `url.URL` with the same fields and invariants.
struct GoURL: Equatable, Sendable {
    var scheme: [UInt8] = []
    var opaque: [UInt8] = []
    var user: GoUserinfo?
    var host: [UInt8] = []
    var path: [UInt8] = []
    var rawPath: [UInt8] = []
    var omitHost = false
    var forceQuery = false
    var rawQuery: [UInt8] = []
    var fragment: [UInt8] = []
    var rawFragment: [UInt8] = []

    /// Go's `url.Parse`: splits off `#fragment`, parses the rest, then the fragment.
    static func parse(_ raw: [UInt8]) throws(GoURLError) -> GoURL {
        let hash = raw.firstIndex(of: UInt8(ascii: "#"))
        let main = hash.map { Array(raw[..<$0]) } ?? raw
        var url = try parseReference(main)
        if let hash {
            let frag = Array(raw[(hash + 1)...])
            if !frag.isEmpty { try url.setFragment(frag) }
        }
        return url
    }

    /// Go's `parse(rawURL, viaRequest: false)`.
    private static func parseReference(_ raw: [UInt8]) throws(GoURLError) -> GoURL {
        if raw.contains(where: { $0 < 0x20 || $0 == 0x7F }) { throw .controlCharacter }
        var url = GoURL()
        if raw == [UInt8(ascii: "*")] {
            url.path = raw
            return url
        }
        var rest: [UInt8]
        (url.scheme, rest) = try splitScheme(raw)
        url.scheme = ByteText.asciiLowercased(url.scheme)

        let questionMarks = rest.reduce(0) { $0 + ($1 == UInt8(ascii: "?") ? 1 : 0) }
        if rest.last == UInt8(ascii: "?") && questionMarks == 1 {
            url.forceQuery = true
            rest.removeLast()
        } else if let q = rest.firstIndex(of: UInt8(ascii: "?")) {
            url.rawQuery = Array(rest[(q + 1)...])
            rest = Array(rest[..<q])
        }

        let slash = UInt8(ascii: "/")
        if rest.first != slash {
            if !url.scheme.isEmpty {
                // RFC 3986 rootless paths after a scheme are kept opaque (mailto:, news:, ...).
                url.opaque = rest
                return url
            }
            let firstSegment = rest.split(separator: slash, maxSplits: 1, omittingEmptySubsequences: false).first ?? []
            if firstSegment.contains(UInt8(ascii: ":")) { throw .colonInFirstSegment }
        }

        let hasDoubleSlash = rest.count >= 2 && rest[0] == slash && rest[1] == slash
        let hasTripleSlash = hasDoubleSlash && rest.count >= 3 && rest[2] == slash
        if (!url.scheme.isEmpty || !hasTripleSlash) && hasDoubleSlash {
            var authority = Array(rest[2...])
            rest = []
            if let s = authority.firstIndex(of: slash) {
                rest = Array(authority[s...])
                authority = Array(authority[..<s])
            }
            (url.user, url.host) = try parseAuthority(authority)
        } else if !url.scheme.isEmpty && rest.first == slash {
            url.omitHost = true
        }
        try url.setPath(rest)
        return url
    }

    /// Go's `getScheme`: `[a-zA-Z][a-zA-Z0-9+.-]*:` or no scheme at all.
    private static func splitScheme(_ raw: [UInt8]) throws(GoURLError) -> ([UInt8], [UInt8]) {
        for (i, c) in raw.enumerated() {
            switch c {
            case 0x61...0x7A, 0x41...0x5A:
                continue
            case 0x30...0x39, UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."):
                if i == 0 { return ([], raw) }
            case UInt8(ascii: ":"):
                if i == 0 { throw .missingScheme }
                return (Array(raw[..<i]), Array(raw[(i + 1)...]))
            default:
                return ([], raw)
            }
        }
        return ([], raw)
    }

    private static func parseAuthority(_ authority: [UInt8]) throws(GoURLError) -> (GoUserinfo?, [UInt8]) {
        guard let at = authority.lastIndex(of: UInt8(ascii: "@")) else {
            return (nil, try parseHost(authority[...]))
        }
        let host = try parseHost(authority[(at + 1)...])
        let userinfo = authority[..<at]
        guard validUserinfo(userinfo) else { throw .invalidUserinfo }
        if let colon = userinfo.firstIndex(of: UInt8(ascii: ":")) {
            let name = try GoEscaping.unescape(userinfo[..<colon], .userPassword)
            let password = try GoEscaping.unescape(userinfo[(colon + 1)...], .userPassword)
            return (GoUserinfo(username: name, password: password), host)
        }
        return (GoUserinfo(username: try GoEscaping.unescape(userinfo, .userPassword), password: nil), host)
    }

    /// Go's `parseHost`: `host[:port]` or `[ipv6%25zone]:port`, unescaped in host mode.
    private static func parseHost(_ host: ArraySlice<UInt8>) throws(GoURLError) -> [UInt8] {
        if host.first == UInt8(ascii: "[") {
            guard let close = host.lastIndex(of: UInt8(ascii: "]")) else { throw .missingBracket }
            let colonPort = host[(close + 1)...]
            guard validOptionalPort(colonPort) else { throw .invalidPort(Array(colonPort)) }
            if let zone = ByteText.firstRange(of: [0x25, 0x32, 0x35], in: host[..<close]) {
                let part1 = try GoEscaping.unescape(host[..<zone], .host)
                let part2 = try GoEscaping.unescape(host[zone..<close], .zone)
                let part3 = try GoEscaping.unescape(host[close...], .host)
                return part1 + part2 + part3
            }
        } else if let colon = host.lastIndex(of: UInt8(ascii: ":")) {
            let colonPort = host[colon...]
            guard validOptionalPort(colonPort) else { throw .invalidPort(Array(colonPort)) }
        }
        return try GoEscaping.unescape(host, .host)
    }

    /// `""` or `:` followed by ASCII digits only.
    private static func validOptionalPort(_ port: ArraySlice<UInt8>) -> Bool {
        guard let first = port.first else { return true }
        guard first == UInt8(ascii: ":") else { return false }
        // Go ranges over runes here; any non-digit byte (including non-ASCII) fails either way.
        return port.dropFirst().allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }

    /// Go's `validUserinfo` (RFC 3986 userinfo characters; `%` is checked later by unescape).
    private static func validUserinfo(_ s: ArraySlice<UInt8>) -> Bool {
        s.allSatisfy { c in
            if GoEscaping.isAlphaNum(c) { return true }
            return Array("-._:~!$&'()*+,;=%@".utf8).contains(c)
        }
    }

    /// Go's `setPath`: keeps the raw spelling only when default escaping would differ.
    private mutating func setPath(_ p: [UInt8]) throws(GoURLError) {
        path = try GoEscaping.unescape(p, .path)
        rawPath = GoEscaping.escape(path, .path) == p ? [] : p
    }

    private mutating func setFragment(_ f: [UInt8]) throws(GoURLError) {
        fragment = try GoEscaping.unescape(f, .fragment)
        rawFragment = GoEscaping.escape(fragment, .fragment) == f ? [] : f
    }

    /// Go's `EscapedPath`: the raw spelling if it is a valid encoding of `path`, else re-escaped.
    func escapedPath() -> [UInt8] {
        if !rawPath.isEmpty && GoEscaping.validEncoded(rawPath, .path),
           let decoded = try? GoEscaping.unescape(rawPath, .path), decoded == path {
            return rawPath
        }
        if path == [UInt8(ascii: "*")] { return path }
        return GoEscaping.escape(path, .path)
    }

    func escapedFragment() -> [UInt8] {
        if !rawFragment.isEmpty && GoEscaping.validEncoded(rawFragment, .fragment),
           let decoded = try? GoEscaping.unescape(rawFragment, .fragment), decoded == fragment {
            return rawFragment
        }
        return GoEscaping.escape(fragment, .fragment)
    }

    /// Go's `(*URL).String`.
    func serialized() -> [UInt8] {
        var buf: [UInt8] = []
        buf.reserveCapacity(scheme.count + host.count + path.count + rawQuery.count + 8)
        if !scheme.isEmpty {
            buf += scheme
            buf.append(UInt8(ascii: ":"))
        }
        if !opaque.isEmpty {
            buf += opaque
        } else {
            if !scheme.isEmpty || !host.isEmpty || user != nil {
                if omitHost && host.isEmpty && user == nil {
                    // Go 1.19+: "scheme:/path" had no authority and gets none back.
                } else {
                    if !host.isEmpty || !path.isEmpty || user != nil {
                        buf += [UInt8(ascii: "/"), UInt8(ascii: "/")]
                    }
                    if let user {
                        buf += user.encoded()
                        buf.append(UInt8(ascii: "@"))
                    }
                    if !host.isEmpty { buf += GoEscaping.escape(host, .host) }
                }
            }
            let escapedPath = escapedPath()
            if let first = escapedPath.first, first != UInt8(ascii: "/"), !host.isEmpty {
                buf.append(UInt8(ascii: "/"))
            }
            if buf.isEmpty {
                // RFC 3986 §4.2: a colon in the first segment would read as a scheme.
                let firstSegment = escapedPath.split(separator: UInt8(ascii: "/"), maxSplits: 1,
                                                     omittingEmptySubsequences: false).first ?? []
                if firstSegment.contains(UInt8(ascii: ":")) { buf += Array("./".utf8) }
            }
            buf += escapedPath
        }
        if forceQuery || !rawQuery.isEmpty {
            buf.append(UInt8(ascii: "?"))
            buf += rawQuery
        }
        if !fragment.isEmpty {
            buf.append(UInt8(ascii: "#"))
            buf += escapedFragment()
        }
        return buf
    }
}
