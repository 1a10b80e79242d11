internal import AddressPolicy
/// The URL rules of contract section 3 (invariant 5): absolute http(s), a host, no userinfo,
/// no control/bidi characters, at most 2048 characters, no obfuscated (decimal, hex, octal,
/// short-form) IP-literal host, and an IP-literal host only where the address policy allows it
/// (`AddressPolicy`, the same ranges the fetcher and the store refuse: `[0:0:0:0:0:0:0:1]` is
/// loopback however it is written). A space inside the path or query is kept in the form the
/// canonical URL has (contract section 4: `/a b` -> `/a%20b`, the query written back as it is),
/// other whitespace is refused. One pass over the UTF-8 bytes: it runs on every link.
public enum LinkSafety {
    public static func check(_ raw: String) -> String? {
        var copy = raw
        return copy.withUTF8 { all -> String? in
            var start = 0, end = all.count
            while start < end, isSpace(all[start]) { start += 1 }
            while end > start, isSpace(all[end - 1]) { end -= 1 }
            let s = UnsafeBufferPointer(rebasing: all[start..<end])
            guard s.count >= 8, s.count <= 4 * FieldCaps.url else { return nil }
            // Scheme.
            var i: Int
            if lower(s[0]) == 0x68, lower(s[1]) == 0x74, lower(s[2]) == 0x74, lower(s[3]) == 0x70 {  // "http"
                i = 4
                if lower(s[4]) == 0x73 { i = 5 }
            } else { return nil }
            guard i + 3 <= s.count, s[i] == 0x3A, s[i + 1] == 0x2F, s[i + 2] == 0x2F else { return nil }
            i += 3
            // Characters: no controls, spaces, backslashes, bidi controls; count scalars.
            var scalars = 0
            var k = 0
            var spaces = false
            while k < s.count {
                let b = s[k]
                if b & 0xC0 != 0x80 { scalars += 1 }
                if b == 0x20 { spaces = true; k += 1; continue }
                if b < 0x20 || b == 0x7F || b == 0x5C { return nil }
                if b == 0xC2, k + 1 < s.count, s[k + 1] <= 0xA0 { return nil }                 // C1, NBSP
                if b == 0xD8, k + 1 < s.count, s[k + 1] == 0x9C { return nil }                 // ALM
                if b == 0xE2, k + 2 < s.count {
                    let b1 = s[k + 1], b2 = s[k + 2]
                    if b1 == 0x80 && (b2 == 0x8E || b2 == 0x8F || (0xAA...0xAE).contains(b2)) { return nil }
                    if b1 == 0x81 && (0xA6...0xA9).contains(b2) { return nil }
                }
                if b == 0xEF, k + 2 < s.count, s[k + 1] == 0xBB, s[k + 2] == 0xBF { return nil }
                k += 1
            }
            guard scalars <= FieldCaps.url else { return nil }
            // Authority.
            var authEnd = i
            while authEnd < s.count, s[authEnd] != 0x2F, s[authEnd] != 0x3F, s[authEnd] != 0x23 { authEnd += 1 }
            guard authEnd > i else { return nil }
            let authority = UnsafeBufferPointer(rebasing: s[i..<authEnd])
            if authority.contains(0x40) || authority.contains(0x20) { return nil }  // userinfo, space in the host
            guard hostAllowed(authority) else { return nil }
            if spaces { return escapingPathSpaces(s, from: authEnd) }
            return start == 0 && end == all.count ? raw : String(decoding: s, as: UTF8.self)
        }
    }

    /// `s` with the spaces of its path (from `pathStart` to the first `?` or `#`) written `%20`.
    static func escapingPathSpaces(_ s: UnsafeBufferPointer<UInt8>, from pathStart: Int) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(s.count + 8)
        var inPath = true
        for (k, b) in s.enumerated() {
            if k >= pathStart, b == 0x3F || b == 0x23 { inPath = false }
            if b == 0x20, inPath {
                out.append(contentsOf: [0x25, 0x32, 0x30])
            } else {
                out.append(b)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    @inline(__always) static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }
    @inline(__always) static func lower(_ b: UInt8) -> UInt8 { b >= 65 && b <= 90 ? b + 32 : b }
    @inline(__always) static func isDigit(_ b: UInt8) -> Bool { b >= 48 && b <= 57 }
    @inline(__always) static func isHex(_ b: UInt8) -> Bool { isDigit(b) || (lower(b) >= 97 && lower(b) <= 102) }

    static func hostAllowed(_ authority: UnsafeBufferPointer<UInt8>) -> Bool {
        if authority.first == 0x5B {  // [IPv6]
            guard let close = authority.firstIndex(of: 0x5D) else { return false }
            let literal = String(decoding: UnsafeBufferPointer(rebasing: authority[0...close]), as: UTF8.self)
            if literal.contains("%") { return false }   // a zone id ties the address to one of our interfaces
            return literalAllowed(literal)
        }
        var hostEnd = authority.count
        if let colon = authority.lastIndex(of: 0x3A) {
            let port = authority[(colon + 1)...]
            guard port.count <= 5, port.allSatisfy(isDigit) else { return false }
            hostEnd = colon
        }
        var host = UnsafeBufferPointer(rebasing: authority[0..<hostEnd])
        while let last = host.last, last == 0x2E { host = UnsafeBufferPointer(rebasing: host[0..<(host.count - 1)]) }
        guard !host.isEmpty else { return false }
        // "localhost" and "*.localhost"
        let localhost: [UInt8] = Array("localhost".utf8)
        if host.count >= 9, zip(host[(host.count - 9)...], localhost).allSatisfy({ lower($0) == $1 }),
           host.count == 9 || host[host.count - 10] == 0x2E { return false }
        // A numeric last label makes the whole host an IPv4 literal for URL parsers (WHATWG),
        // including decimal/hex/octal short forms: only canonical public dotted quads pass.
        let labelStart = (host.lastIndex(of: 0x2E).map { $0 + 1 }) ?? 0
        let label = host[labelStart...]
        let numeric = (!label.isEmpty && label.allSatisfy(isDigit))
            || (label.count > 2 && label.first == 0x30 && lower(label[labelStart + 1]) == 0x78
                && label.dropFirst(2).allSatisfy(isHex))
        guard numeric else { return true }
        let quad = String(decoding: host, as: UTF8.self)
        return isCanonicalDottedQuad(quad) && literalAllowed(quad)
    }

    /// Four decimal octets without leading zeros: any other numeric form is an obfuscated literal.
    static func isCanonicalDottedQuad(_ h: String) -> Bool {
        let parts = h.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { p in
            !p.isEmpty && p.count <= 3 && p.utf8.allSatisfy(isDigit) && (p == "0" || p.first != "0") && Int(p)! <= 255
        }
    }

    /// The address policy's verdict on an IP-literal host (`192.0.2.1`, `[2001:db8::1]`).
    static func literalAllowed(_ host: String) -> Bool {
        AddressPolicy.literalAddress(inHost: host).map { AddressPolicy.verdict(for: $0).isAllowed } ?? false
    }
}

extension Character {
    var isASCIIDigitChar: Bool { ("0"..."9").contains(self) }
}
