/// An IPv4 or IPv6 address held as an integer so prefixes can be compared with masks.
///
/// Parsing is hand-written because Foundation has no address type on Linux and `inet_pton`
/// would pull Glibc into a module that must stay pure Swift; the grammar is small (RFC 4291 §2.2).
public enum IPAddress: Hashable, Sendable, CustomStringConvertible {
    case v4(UInt32)
    case v6(UInt128)

    /// Parses a strict dotted quad (`192.0.2.1`, no leading zeros) or any RFC 4291 IPv6 text form
    /// (`::1`, `2001:db8::1`, `::ffff:10.0.0.1`, full eight groups). Zone ids (`fe80::1%eth0`) are
    /// refused: an address whose meaning depends on a local interface has no place in a URL we fetch.
    /// Surrounding brackets (`[::1]`, as in a URL host) are accepted for IPv6.
    public init?(_ text: String) {
        var s = Substring(text)
        if s.hasPrefix("[") && s.hasSuffix("]") && s.count >= 2 {
            s = s.dropFirst().dropLast()
            guard let v6 = IPAddress.parseIPv6(s) else { return nil }
            self = .v6(v6)
            return
        }
        if let v4 = IPAddress.parseDottedQuad(s) {
            self = .v4(v4)
        } else if let v6 = IPAddress.parseIPv6(s) {
            self = .v6(v6)
        } else {
            return nil
        }
    }

    public var isIPv4: Bool { if case .v4 = self { return true } else { return false } }

    /// Bit width of the address family (32 or 128).
    public var bitWidth: Int { isIPv4 ? 32 : 128 }

    public var description: String {
        switch self {
        case .v4(let value): return IPAddress.formatIPv4(value)
        case .v6(let value): return IPAddress.formatIPv6(value)
        }
    }

    // MARK: - IPv4

    static func parseDottedQuad(_ s: Substring) -> UInt32? {
        let parts = s.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var value: UInt32 = 0
        for part in parts {
            guard (1...3).contains(part.utf8.count),
                  part.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                  // A leading zero would mean octal to inet_aton; refuse the ambiguity here and
                  // leave such forms to `AddressPolicy.parseObfuscatedIPv4`.
                  !(part.utf8.count > 1 && part.utf8.first == 0x30),
                  let octet = UInt32(part), octet <= 255
            else { return nil }
            value = value << 8 | octet
        }
        return value
    }

    static func formatIPv4(_ value: UInt32) -> String {
        "\(value >> 24).\(value >> 16 & 0xff).\(value >> 8 & 0xff).\(value & 0xff)"
    }

    // MARK: - IPv6

    static func parseIPv6(_ s: Substring) -> UInt128? {
        guard !s.isEmpty, !s.contains("%") else { return nil }
        var head: [UInt16] = []
        var tail: [UInt16] = []
        let compressed: Bool
        if let gap = s.firstRange(of: "::") {
            compressed = true
            let left = s[..<gap.lowerBound]
            let right = s[gap.upperBound...]
            guard let l = parseGroups(left, allowIPv4Tail: false),
                  let r = parseGroups(right, allowIPv4Tail: true)
            else { return nil }
            head = l
            tail = r
            // "::" stands for at least one zero group.
            guard head.count + tail.count <= 7 else { return nil }
        } else {
            compressed = false
            guard let all = parseGroups(s, allowIPv4Tail: true), all.count == 8 else { return nil }
            head = all
        }
        var groups = head
        if compressed {
            groups += Array(repeating: 0, count: 8 - head.count - tail.count)
            groups += tail
        }
        var value: UInt128 = 0
        for g in groups { value = value << 16 | UInt128(g) }
        return value
    }

    /// Parses colon-separated hex groups; an empty input is zero groups. The last piece may be a
    /// dotted quad (counted as two groups) when `allowIPv4Tail` is set.
    private static func parseGroups(_ s: Substring, allowIPv4Tail: Bool) -> [UInt16]? {
        if s.isEmpty { return [] }
        let pieces = s.split(separator: ":", omittingEmptySubsequences: false)
        var groups: [UInt16] = []
        for (index, piece) in pieces.enumerated() {
            if index == pieces.count - 1, allowIPv4Tail, piece.contains(".") {
                guard let v4 = parseDottedQuad(piece) else { return nil }
                groups.append(UInt16(v4 >> 16))
                groups.append(UInt16(v4 & 0xffff))
                continue
            }
            guard (1...4).contains(piece.utf8.count),
                  piece.utf8.allSatisfy(isHexDigit),
                  let g = UInt16(piece, radix: 16)
            else { return nil }
            groups.append(g)
        }
        return groups
    }

    private static func isHexDigit(_ c: UInt8) -> Bool {
        (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66)
    }

    /// RFC 5952 text: lowercase, longest run (>= 2) of zero groups compressed, and IPv4-mapped
    /// addresses shown with a dotted tail so log lines read naturally.
    static func formatIPv6(_ value: UInt128) -> String {
        if value >> 32 == 0xffff {
            return "::ffff:" + formatIPv4(UInt32(truncatingIfNeeded: value))
        }
        let groups = (0..<8).map { UInt16(truncatingIfNeeded: value >> UInt128(112 - 16 * $0)) }
        var bestStart = -1, bestLength = 0, runStart = -1
        for i in 0...8 {
            if i < 8 && groups[i] == 0 {
                if runStart < 0 { runStart = i }
            } else if runStart >= 0 {
                if i - runStart > bestLength && i - runStart >= 2 { bestStart = runStart; bestLength = i - runStart }
                runStart = -1
            }
        }
        func hex(_ range: Range<Int>) -> String {
            groups[range].map { String($0, radix: 16) }.joined(separator: ":")
        }
        if bestStart < 0 { return hex(0..<8) }
        return hex(0..<bestStart) + "::" + hex((bestStart + bestLength)..<8)
    }
}
