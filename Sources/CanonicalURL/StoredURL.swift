/// Checks every URL pulse-ingest stores (data contract §3, invariant 5): absolute http(s), a
/// real host, no userinfo, no control or bidi characters, no obfuscated IP-literal host, and
/// at most `maxLength` characters. Parsing uses the same Go-compatible parser as
/// `CanonicalURL`, so what passes here canonicalises the way the Go worker did.
public enum StoredURL {
    /// Validates `raw` (surrounding whitespace trimmed) and returns the trimmed URL.
    ///
    /// Private and loopback ranges are the address policy's business (AddressPolicy module);
    /// pass `ipLiteralAllowed` to apply it to IP-literal hosts (see `ipLiteralHost(of:)`),
    /// e.g. `{ AddressPolicy.literalAddress(inHost: $0).map { AddressPolicy.verdict(for: $0).isAllowed } ?? false }`.
    public static func validate(
        _ raw: String,
        maxLength: Int = 2048,
        ipLiteralAllowed: (String) -> Bool = { _ in true }
    ) -> Result<String, StoredURLRejection> {
        let trimmed = trimWhitespace(raw)
        if trimmed.isEmpty { return .failure(.empty) }
        // Cap before parsing so hostile input costs O(maxLength) at most.
        if trimmed.utf8.count > maxLength && trimmed.unicodeScalars.count > maxLength {
            return .failure(.tooLong(limit: maxLength))
        }
        if trimmed.unicodeScalars.contains(where: isControlOrBidi) { return .failure(.controlOrBidiCharacters) }
        guard let url = try? GoURL.parse(Array(trimmed.utf8)) else { return .failure(.malformed) }
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
            if decoded.unicodeScalars.contains(where: isControlOrBidi) { return .failure(.controlOrBidiCharacters) }
            if HostForms.isObfuscatedIPv4(name) { return .failure(.obfuscatedIPLiteral) }
        }
        if let literal = literalHost(name), !ipLiteralAllowed(literal) { return .failure(.disallowedIPLiteral) }
        return .success(trimmed)
    }

    /// The host of `url` when it is an IP literal, a dotted quad (`192.0.2.1`) or a bracketed
    /// IPv6 address (`[2001:db8::1]`), for the address-range check; nil for host names,
    /// unparsable URLs and obfuscated forms (which `validate` refuses outright).
    public static func ipLiteralHost(of url: String) -> String? {
        guard let parsed = try? GoURL.parse(Array(trimWhitespace(url).utf8)), !parsed.host.isEmpty else { return nil }
        return literalHost(HostForms.split(parsed.host).name)
    }

    private static func literalHost(_ name: [UInt8]) -> String? {
        if HostForms.isBracketedIPv6(name) { return String(decoding: name, as: UTF8.self).lowercased() }
        return HostForms.isDottedQuad(ascii: name) ? String(decoding: name, as: UTF8.self) : nil
    }

    static func isControlOrBidi(_ scalar: Unicode.Scalar) -> Bool {
        // ASCII (nearly every URL) has no separators or bidi controls: skip the property tables.
        if scalar.value < 0x80 { return scalar.value < 0x20 || scalar.value == 0x7F }
        let props = scalar.properties
        switch props.generalCategory {
        case .control, .lineSeparator, .paragraphSeparator: return true
        default: return props.isBidiControl
        }
    }

    static func trimWhitespace(_ s: String) -> String {
        var view = Substring(s)
        while let first = view.first, first.isWhitespace { view.removeFirst() }
        while let last = view.last, last.isWhitespace { view.removeLast() }
        return String(view)
    }
}
