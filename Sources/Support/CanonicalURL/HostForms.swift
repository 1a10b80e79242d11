
/// Classification of the host of a parsed URL, for `StoredURL`.
enum HostForms {
    /// Splits Go's `host[:port]` (`[v6]:port` for IPv6) into name and port, like `URL.Hostname()`.
    static func split(_ hostPort: [UInt8]) -> (name: [UInt8], port: [UInt8]?) {
        if hostPort.first == UInt8(ascii: "["), let close = hostPort.firstIndex(of: UInt8(ascii: "]")) {
            let rest = hostPort[(close + 1)...]
            return (Array(hostPort[...close]), rest.first == UInt8(ascii: ":") ? Array(rest.dropFirst()) : nil)
        }
        if let colon = hostPort.lastIndex(of: UInt8(ascii: ":")) {
            return (Array(hostPort[..<colon]), Array(hostPort[(colon + 1)...]))
        }
        return (hostPort, nil)
    }

    /// A bracketed IPv6 literal without zone: hex digits, colons and an optional dotted IPv4 tail.
    static func isBracketedIPv6(_ name: [UInt8]) -> Bool {
        guard name.count > 2, name.first == UInt8(ascii: "["), name.last == UInt8(ascii: "]") else { return false }
        let inner = name.dropFirst().dropLast()
        return inner.contains(UInt8(ascii: ":")) && inner.allSatisfy {
            GoEscaping.isHex($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".")
        }
    }

    /// Letters, digits, `-`, `.`, `_` and (IDN) non-ASCII; every other ASCII byte is refused.
    static func isPlausibleHostName(_ name: [UInt8]) -> Bool {
        !name.isEmpty && name.allSatisfy {
            $0 >= 0x80 || GoEscaping.isAlphaNum($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".")
                || $0 == UInt8(ascii: "_")
        }
    }

    /// Strict dotted quad: four decimal octets 0-255 without leading zeros.
    static func isDottedQuad(_ name: some StringProtocol) -> Bool {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return false }
        return parts.allSatisfy { part in
            guard !part.isEmpty, part.count <= 3, part.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return false }
            if part.count > 1 && part.first == "0" { return false }
            return Int(part)! <= 255
        }
    }

    /// WHATWG URL "ends in a number": hosts resolvers and browsers read as IPv4 (`2130706433`,
    /// `0x7f.1`, `017700000001`, `127.1`, `127.0.0.1.`, `127.0.0.1..`). Matches case-insensitively.
    static func endsInNumber(_ name: String) -> Bool {
        var parts = name.lowercased().split(separator: ".", omittingEmptySubsequences: false)
        // Trailing dots are the root: `127.0.0.1..` still ends in a number (resolvers read it so).
        while parts.last?.isEmpty == true && parts.count > 1 { parts.removeLast() }
        guard let last = parts.last, !last.isEmpty else { return false }
        if last.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) { return true }
        if last.hasPrefix("0x") { return last.utf8.dropFirst(2).allSatisfy(GoEscaping.isHex) }
        return false
    }

    /// `endsInNumber` on ASCII bytes: every stored URL's host passes here, so no String is built.
    static func endsInNumber(ascii name: [UInt8]) -> Bool {
        var end = name.count
        while end > 0, name[end - 1] == UInt8(ascii: ".") { end -= 1 }
        let start = name[..<end].lastIndex(of: UInt8(ascii: ".")).map { $0 + 1 } ?? 0
        let last = name[start..<end]
        guard !last.isEmpty else { return false }
        if last.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) { return true }
        if last.count >= 2, last[start] == UInt8(ascii: "0"), last[start + 1] | 0x20 == UInt8(ascii: "x") {
            return last.dropFirst(2).allSatisfy(GoEscaping.isHex)
        }
        return false
    }

    /// `isDottedQuad` on ASCII bytes.
    static func isDottedQuad(ascii name: [UInt8]) -> Bool {
        let parts = name.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 4 else { return false }
        return parts.allSatisfy { part in
            guard !part.isEmpty, part.count <= 3, part.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return false }
            if part.count > 1 && part.first == UInt8(ascii: "0") { return false }
            return part.reduce(0) { $0 * 10 + Int($1 - 0x30) } <= 255
        }
    }

    /// `.`, `..`, ...: no name at all once the trailing dots are read as the root.
    static func isOnlyDots(_ name: [UInt8]) -> Bool {
        name.allSatisfy { $0 == UInt8(ascii: ".") }
    }

    /// `localhost` or a name under it (RFC 6761: resolvers answer loopback), in any case, with
    /// trailing dots, or spelled with compatibility characters that fold to it (`ｌｏｃａｌｈｏｓｔ`).
    static func isLocalhost(_ name: [UInt8]) -> Bool {
        var text = name.allSatisfy({ $0 < 0x80 })
            ? String(decoding: ByteText.asciiLowercased(name), as: UTF8.self)
            : CompatibilityASCII.fold(String(decoding: name, as: UTF8.self)).lowercased()
        while text.hasSuffix(".") { text.removeLast() }
        return text == "localhost" || text.hasSuffix(".localhost")
    }

    /// True when the host is an IPv4 address in any form other than a plain dotted quad,
    /// including one spelled with full-width or other compatibility characters (NFKC folds
    /// `１２７．０．０．１` to `127.0.0.1`, and resolvers applying IDNA do the same).
    static func isObfuscatedIPv4(_ name: [UInt8]) -> Bool {
        if name.allSatisfy({ $0 < 0x80 }) {
            return endsInNumber(ascii: name) && !isDottedQuad(ascii: name)
        }
        let text = String(decoding: name, as: UTF8.self)
        let folded = CompatibilityASCII.fold(text)
        return endsInNumber(folded)
    }
}
