internal import AddressPolicy
internal import TextSupport

/// The one rule for every URL pulse-ingest keeps (data contract §3, invariant 5): feed links
/// (FeedParser), page metadata (OpenGraph, after its relative-reference resolution) and the
/// store (ArticleStore) all ask here, so `--dump-feed`, enrichment and the table agree.
///
/// A URL passes when it is absolute http(s) with a host; has no userinfo; no control (C0, DEL,
/// C1), bidi, line/paragraph separator, no-break space, byte-order mark or backslash anywhere; a
/// host that is not `localhost`/`*.localhost`, not an obfuscated IPv4 form (decimal, octal, hex,
/// short, trailing dot, compatibility digits), and, when an IP literal (dotted quad or bracketed
/// IPv6, zone ids refused), allowed by `AddressPolicy` however it is spelled (`[0:0:0:0:0:0:0:1]`
/// is loopback); a port in 1...65535; at most `maxLength` characters. Parsing uses the same
/// Go-compatible parser as `CanonicalURL`, so what passes canonicalises the way the Go worker did.
///
/// Spaces inside the path are written `%20` in the result (contract §4: `/a b` -> `/a%20b`, the
/// canonical form); in the query and fragment they are kept as they are; in the host they are refused.
public enum StoredURL {
    /// Characters (Unicode scalars), the `url` columns' limit.
    public static let maxLength = 2048

    /// The address policy's verdict on an IP-literal host (`192.0.2.1`, `[2001:db8::1]`): the
    /// same ranges the fetcher refuses to connect to.
    public static func addressPolicyAllows(_ literal: String) -> Bool {
        AddressPolicy.literalAddress(inHost: literal).map { AddressPolicy.verdict(for: $0).isAllowed } ?? false
    }

    /// The checked URL (surrounding whitespace trimmed, path spaces as `%20`), or nil.
    public static func check(_ raw: String) -> String? {
        guard case .success(let url) = validate(raw) else { return nil }
        return url
    }

    /// Validates `raw` and returns the URL to keep, or why it may not be kept.
    /// `ipLiteralAllowed` is the address policy unless a test swaps it.
    public static func validate(
        _ raw: String,
        maxLength: Int = maxLength,
        ipLiteralAllowed: (String) -> Bool = addressPolicyAllows
    ) -> Result<String, StoredURLRejection> {
        // Fast path: one pass over the bytes of a plain ASCII URL (nearly every feed link) that
        // passes. It accepts only what the full check below accepts with the same result; anything
        // it does not recognise, and every refusal, goes through the full check for its reason.
        if let accepted = PlainURLScan.accept(raw, maxLength: maxLength) { return .success(accepted) }
        return fullCheck(raw, maxLength: maxLength, ipLiteralAllowed: ipLiteralAllowed)
    }

    static func fullCheck(_ raw: String, maxLength: Int,
                          ipLiteralAllowed: (String) -> Bool) -> Result<String, StoredURLRejection> {
        let trimmed = trimWhitespace(raw)
        if trimmed.isEmpty { return .failure(.empty) }
        // Cap before parsing so hostile input costs O(maxLength) at most.
        if trimmed.utf8.count > maxLength && trimmed.unicodeScalars.count > maxLength {
            return .failure(.tooLong(limit: maxLength))
        }
        var hasSpace = false
        for scalar in trimmed.unicodeScalars {
            if isControlOrBidi(scalar) { return .failure(.controlOrBidiCharacters) }
            if isRefusedCharacter(scalar) { return .failure(.disallowedCharacter) }
            if scalar == " " { hasSpace = true }
        }
        let text = hasSpace ? escapingPathSpaces(trimmed) : trimmed
        // The cap is on the URL kept, after its path spaces became "%20".
        if hasSpace, text.unicodeScalars.count > maxLength { return .failure(.tooLong(limit: maxLength)) }
        guard let url = try? GoURL.parse(Array(text.utf8)) else { return .failure(.malformed) }
        if url.scheme.isEmpty { return .failure(.notAbsolute) }
        let scheme = String(decoding: url.scheme, as: UTF8.self)
        guard scheme == "http" || scheme == "https" else { return .failure(.schemeNotAllowed) }
        if !url.opaque.isEmpty || url.host.isEmpty { return .failure(.noHost) }
        if url.user != nil { return .failure(.userinfoPresent) }

        let (name, port) = HostForms.split(url.host)
        if name.isEmpty { return .failure(.noHost) }
        if let port, !port.isEmpty {
            guard port.count <= 5, let number = Int(String(decoding: port, as: UTF8.self)),
                  (1...65535).contains(number) else { return .failure(.invalidPort) }
        }
        if name.first == UInt8(ascii: "[") {
            guard HostForms.isBracketedIPv6(name) else { return .failure(.invalidHost) }
        } else {
            // The host was percent-decoded by the parser, so check the decoded text again.
            guard ByteText.isValidUTF8(name), HostForms.isPlausibleHostName(name) else { return .failure(.invalidHost) }
            let decoded = String(decoding: name, as: UTF8.self)
            if decoded.unicodeScalars.contains(where: { isControlOrBidi($0) || isRefusedCharacter($0) }) {
                return .failure(.controlOrBidiCharacters)
            }
            if HostForms.isOnlyDots(name) { return .failure(.noHost) }
            if HostForms.isLocalhost(name) { return .failure(.localhost) }
            if HostForms.isObfuscatedIPv4(name) { return .failure(.obfuscatedIPLiteral) }
        }
        if let literal = literalHost(name), !ipLiteralAllowed(literal) { return .failure(.disallowedIPLiteral) }
        return .success(text)
    }

    private static func literalHost(_ name: [UInt8]) -> String? {
        if HostForms.isBracketedIPv6(name) { return String(decoding: name, as: UTF8.self).lowercased() }
        return HostForms.isDottedQuad(ascii: name) ? String(decoding: name, as: UTF8.self) : nil
    }

    /// Controls, line separators and direction controls (`HiddenCharacter`, all but the
    /// invisible kind, which `isRefusedCharacter` refuses under its own reason).
    public static func isControlOrBidi(_ scalar: Unicode.Scalar) -> Bool {
        guard let kind = HiddenCharacter.kind(scalar) else { return false }
        return kind != .invisible
    }

    /// The other characters no kept URL may hold: backslash (read as `/` by browsers, so it
    /// hides the real path or host), no-break space and the invisible code points.
    public static func isRefusedCharacter(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "\\" || scalar.value == 0xA0 || HiddenCharacter.kind(scalar) == .invisible
    }

    /// True when a scalar makes the URL unkeepable wherever it stands: for callers that must
    /// refuse a reference before resolving it (resolution can drop the segment it is in).
    public static func isUnsafeScalar(_ scalar: Unicode.Scalar) -> Bool {
        HiddenCharacter.isHidden(scalar) || scalar.value == 0xA0
    }

    /// ASCII space, tab, CR and LF are trimmed, and the other white space no rule refuses
    /// (ideographic space, en space, ...): a no-break space or NEL at either end is refused, not trimmed.
    static func trimWhitespace(_ s: String) -> String {
        func trims(_ c: Character) -> Bool {
            guard c.isWhitespace else { return false }
            guard let scalar = c.unicodeScalars.first, c.unicodeScalars.count == 1 else { return false }
            if scalar.value < 0x80 { return scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r" }
            return !isControlOrBidi(scalar) && !isRefusedCharacter(scalar)
        }
        var view = Substring(s)
        while let first = view.first, trims(first) { view.removeFirst() }
        while let last = view.last, trims(last) { view.removeLast() }
        return String(view)
    }

    /// `s` with the spaces of its path (after the authority, up to the first `?` or `#`) as `%20`.
    static func escapingPathSpaces(_ s: String) -> String {
        let bytes = Array(s.utf8)
        var pathStart = 0
        if let schemeEnd = bytes.firstIndex(of: UInt8(ascii: ":")), bytes.count >= schemeEnd + 3,
           bytes[schemeEnd + 1] == UInt8(ascii: "/"), bytes[schemeEnd + 2] == UInt8(ascii: "/") {
            pathStart = schemeEnd + 3
            while pathStart < bytes.count, bytes[pathStart] != UInt8(ascii: "/"), bytes[pathStart] != UInt8(ascii: "?"),
                  bytes[pathStart] != UInt8(ascii: "#") { pathStart += 1 }
        }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 8)
        var inPath = true
        for (k, b) in bytes.enumerated() {
            if b == UInt8(ascii: "?") || b == UInt8(ascii: "#") { inPath = false }
            if b == 0x20, inPath, k >= pathStart {
                out += [0x25, 0x32, 0x30]
            } else {
                out.append(b)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// The fast path of `StoredURL.validate`: a single pass over a plain ASCII URL that is certain to
/// pass the full check, returning the same result the full check would. Plain means: `http://` or
/// `https://` (any case), a host of letters, digits, `-`, `_` and `.` that is not only dots, not
/// `localhost`/`*.localhost` and whose last label is not a number (no IP literal at all), an
/// optional port 1...65535, then printable ASCII with every `%` starting a valid escape in the path
/// and fragment (Go's parser refuses a bad one there; it does not look at the query). Anything
/// else returns nil and takes the full check, which is where every refusal gets its reason.
enum PlainURLScan {
    static func accept(_ raw: String, maxLength: Int) -> String? {
        var copy = raw
        return copy.withUTF8 { all -> String? in
            var start = 0, end = all.count
            while start < end, isTrimmed(all[start]) { start += 1 }
            while end > start, isTrimmed(all[end - 1]) { end -= 1 }
            let s = UnsafeBufferPointer(rebasing: all[start..<end])
            guard s.count >= 8, s.count <= maxLength else { return nil }
            var i: Int
            guard s[0] | 0x20 == 0x68, s[1] | 0x20 == 0x74, s[2] | 0x20 == 0x74, s[3] | 0x20 == 0x70 else { return nil }
            i = s[4] | 0x20 == 0x73 ? 5 : 4
            guard i + 3 <= s.count, s[i] == 0x3A, s[i + 1] == 0x2F, s[i + 2] == 0x2F else { return nil }
            i += 3
            // Host: [A-Za-z0-9._-]+, then an optional :port.
            let hostStart = i
            var allDots = true
            while i < s.count {
                let b = s[i]
                if b == 0x2E { i += 1; continue }
                guard isHostByte(b) else { break }
                allDots = false
                i += 1
            }
            let hostEnd = i
            guard hostEnd > hostStart, !allDots else { return nil }
            // The last label (trailing dots left out) must not be numeric: that host is an IP
            // literal, obfuscated or not, and is the full check's business.
            var labelEnd = hostEnd
            while labelEnd > hostStart, s[labelEnd - 1] == 0x2E { labelEnd -= 1 }
            var labelStart = labelEnd
            while labelStart > hostStart, s[labelStart - 1] != 0x2E { labelStart -= 1 }
            if looksNumeric(s, labelStart, labelEnd) || isLocalhost(s, labelStart, labelEnd) { return nil }
            if i < s.count, s[i] == 0x3A {
                i += 1
                var value = 0, digits = 0
                while i < s.count, s[i] >= 0x30, s[i] <= 0x39 {
                    value = value * 10 + Int(s[i] - 0x30)
                    digits += 1
                    if digits > 5 { return nil }
                    i += 1
                }
                if digits > 0 && !(1...65535).contains(value) { return nil }
            }
            // The authority ends here, at "/", "?", "#" or the end.
            guard i == s.count || s[i] == 0x2F || s[i] == 0x3F || s[i] == 0x23 else { return nil }
            // Path, query, fragment: printable ASCII except backslash and space (a space makes the
            // result longer than the input: the full check escapes it and applies the cap after);
            // every "%" in the path and fragment starts a valid escape.
            var section = 0  // 0 path, 1 query, 2 fragment (Go cuts at the first "#", then the first "?")
            var k = i
            while k < s.count {
                let b = s[k]
                if b <= 0x20 || b >= 0x7F || b == 0x5C { return nil }
                if b == 0x3F, section == 0 { section = 1 }
                if b == 0x23, section < 2 { section = 2 }
                if b == 0x25, section != 1 {
                    guard k + 2 < s.count, GoEscaping.isHex(s[k + 1]), GoEscaping.isHex(s[k + 2]) else { return nil }
                }
                k += 1
            }
            return start == 0 && end == all.count ? raw : String(decoding: s, as: UTF8.self)
        }
    }

    @inline(__always) static func isTrimmed(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }
    @inline(__always) static func isHostByte(_ b: UInt8) -> Bool {
        (b | 0x20 >= 0x61 && b | 0x20 <= 0x7A) || (b >= 0x30 && b <= 0x39) || b == 0x2D || b == 0x5F
    }

    /// Decimal digits, or `0x` and hex digits: what WHATWG reads as a number (so the host as IPv4).
    static func looksNumeric(_ s: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int) -> Bool {
        guard to > from else { return false }
        if (from..<to).allSatisfy({ s[$0] >= 0x30 && s[$0] <= 0x39 }) { return true }
        if to - from >= 2, s[from] == 0x30, s[from + 1] | 0x20 == 0x78 {
            return (from + 2..<to).allSatisfy { GoEscaping.isHex(s[$0]) }
        }
        return false
    }

    /// The last label is `localhost` (any case): the host is `localhost` or under it.
    static func isLocalhost(_ s: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int) -> Bool {
        let name: StaticString = "localhost"
        guard to - from == name.utf8CodeUnitCount else { return false }
        let bytes = UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
        for k in 0..<bytes.count where s[from + k] | 0x20 != bytes[k] { return false }
        return true
    }
}
