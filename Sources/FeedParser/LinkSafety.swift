/// The URL rules of contract section 3 (invariant 5): absolute http(s), a host, no userinfo,
/// no control/bidi/space characters, at most 2048 characters, no private, loopback, link-local
/// or obfuscated (decimal, hex, octal, short-form) IP-literal host. Minimal on purpose; the lead
/// may swap in the shared URL module.
public enum LinkSafety {
    public static func check(_ raw: String) -> String? {
        let s = raw.trimmingCharacters(in: " \t\r\n")
        guard !s.isEmpty, s.unicodeScalars.count <= FieldCaps.url else { return nil }
        for v in s.unicodeScalars {
            let c = v.value
            if c <= 0x20 || c == 0x7F || (0x80...0xA0).contains(c) || c == 0x200E || c == 0x200F
                || (0x202A...0x202E).contains(c) || (0x2066...0x2069).contains(c) || c == 0xFEFF
                || c == 0x061C || c == 0x5C { return nil }
        }
        let parts = URLResolver.split(s)
        guard let scheme = parts.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let authority = parts.authority, !authority.isEmpty, !authority.contains("@") else { return nil }
        var host = Substring(authority)
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return nil }
            let literal = host[host.index(after: host.startIndex)..<close].lowercased()
            return ipv6Allowed(literal) ? s : nil
        }
        if let colon = host.lastIndex(of: ":") {
            let port = host[host.index(after: colon)...]
            guard port.allSatisfy(\.isASCIIDigitChar), port.count <= 5 else { return nil }
            host = host[..<colon]
        }
        let h = host.lowercased().trimmingCharacters(in: ".")
        guard !h.isEmpty, h != "localhost", !h.hasSuffix(".localhost") else { return nil }
        // A numeric last label makes the whole host an IPv4 literal for URL parsers (WHATWG),
        // including decimal/hex/octal short forms: only canonical public dotted quads pass.
        let lastLabel = h.split(separator: ".").last ?? ""
        let numeric = lastLabel.allSatisfy(\.isASCIIDigitChar)
            || (lastLabel.hasPrefix("0x") && lastLabel.dropFirst(2).allSatisfy(\.isHexDigit))
        if numeric { return ipv4Allowed(h) ? s : nil }
        return s
    }

    /// Only canonical dotted quads of public addresses pass.
    static func ipv4Allowed(_ h: String) -> Bool {
        let parts = h.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return false }
        var o: [Int] = []
        for p in parts {
            guard !p.isEmpty, p.count <= 3, p.allSatisfy(\.isASCIIDigitChar), p == "0" || !p.hasPrefix("0"),
                  let v = Int(p), v <= 255 else { return false }
            o.append(v)
        }
        switch (o[0], o[1]) {
        case (0, _), (10, _), (127, _), (169, 254), (192, 168): return false
        case (172, 16...31), (100, 64...127), (192, 0), (198, 18...19): return false
        case (224..., _): return false
        default: return true
        }
    }

    static func ipv6Allowed(_ h: String) -> Bool {
        if h == "::" || h == "::1" || h.contains(".") || h.contains("%") { return false }  // v4-mapped/zone ids
        if h.hasPrefix("fc") || h.hasPrefix("fd") || h.hasPrefix("fe8") || h.hasPrefix("fe9")
            || h.hasPrefix("fea") || h.hasPrefix("feb") || h.hasPrefix("ff") || h.hasPrefix("::") { return false }
        return h.allSatisfy { $0.isHexDigit || $0 == ":" }
    }
}

extension Character {
    var isASCIIDigitChar: Bool { ("0"..."9").contains(self) }
}
