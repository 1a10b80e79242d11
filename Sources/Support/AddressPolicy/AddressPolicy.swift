/// Decides whether the daemon may connect to an address: only globally reachable unicast is
/// allowed, apart from networks the operator exempts with `--allow-networks`.
///
/// The tables follow the IANA IPv4/IPv6 special-purpose address registries (RFC 6890 and updates).
public enum AddressPolicy {
    struct Range: Sendable {
        let cidr: CIDR
        let reason: String
        init(_ text: String, _ reason: String) {
            self.cidr = CIDR(string: text)!
            self.reason = reason
        }
    }

    /// Order matters: the first match gives the reason, so narrower ranges come first.
    static let blockedIPv4: [Range] = [
        Range("0.0.0.0/32", "unspecified address"),
        Range("0.0.0.0/8", "\"this network\" 0.0.0.0/8"),
        Range("10.0.0.0/8", "private network (RFC 1918)"),
        Range("100.64.0.0/10", "carrier-grade NAT shared space 100.64.0.0/10"),
        Range("127.0.0.0/8", "loopback"),
        Range("169.254.169.254/32", "link-local cloud metadata endpoint"),
        Range("169.254.0.0/16", "link-local"),
        Range("172.16.0.0/12", "private network (RFC 1918)"),
        Range("192.0.0.0/24", "IETF protocol assignments 192.0.0.0/24"),
        Range("192.0.2.0/24", "documentation range TEST-NET-1"),
        Range("192.88.99.0/24", "deprecated 6to4 relay anycast"),
        Range("192.168.0.0/16", "private network (RFC 1918)"),
        Range("198.18.0.0/15", "benchmarking range 198.18.0.0/15"),
        Range("198.51.100.0/24", "documentation range TEST-NET-2"),
        Range("203.0.113.0/24", "documentation range TEST-NET-3"),
        Range("224.0.0.0/4", "multicast"),
        Range("255.255.255.255/32", "limited broadcast"),
        Range("240.0.0.0/4", "reserved range 240.0.0.0/4"),
    ]

    static let blockedIPv6: [Range] = [
        Range("::/128", "unspecified address"),
        Range("::1/128", "loopback"),
        Range("100::/64", "discard-only prefix"),
        Range("2001:2::/48", "benchmarking prefix"),
        Range("2001:10::/28", "ORCHID prefix"),
        Range("2001:20::/28", "ORCHIDv2 prefix"),
        Range("2001:db8::/32", "documentation prefix 2001:db8::/32"),
        Range("3fff::/20", "documentation prefix 3fff::/20"),
        Range("64:ff9b:1::/48", "local-use NAT64 prefix 64:ff9b:1::/48"),
        Range("fc00::/7", "unique local address (fc00::/7)"),
        Range("fe80::/10", "link-local"),
        Range("fec0::/10", "site-local (deprecated)"),
        Range("ff00::/8", "multicast"),
    ]

    static let globalUnicast = CIDR(string: "2000::/3")!
    static let ipv4Mapped = CIDR(string: "::ffff:0:0/96")!
    static let ipv4Compatible = CIDR(string: "::/96")!
    static let nat64 = CIDR(string: "64:ff9b::/96")!
    static let sixToFour = CIDR(string: "2002::/16")!
    static let teredo = CIDR(string: "2001::/32")!

    /// Classifies `address`. Addresses inside any of `allowing` are allowed outright. IPv6 forms
    /// that carry an IPv4 address (mapped, compatible, NAT64, 6to4, Teredo) are blocked when the
    /// carried IPv4 address is, since traffic to them can end up at that IPv4 host.
    public static func verdict(for address: IPAddress, allowing: [CIDR] = []) -> AddressVerdict {
        if allowing.contains(where: { $0.contains(address) }) { return .allowed }
        switch address {
        case .v4:
            return blockedIPv4.first(where: { $0.cidr.contains(address) })
                .map { .blocked(reason: $0.reason) } ?? .allowed
        case .v6(let value):
            return verdictIPv6(value, address: address, allowing: allowing)
        }
    }

    private static func verdictIPv6(_ value: UInt128, address: IPAddress, allowing: [CIDR]) -> AddressVerdict {
        if let hit = blockedIPv6.first(where: { $0.cidr.contains(address) }) {
            return .blocked(reason: hit.reason)
        }
        let low32 = UInt32(truncatingIfNeeded: value)
        if ipv4Mapped.contains(address) {
            return wrapped(low32, kind: "IPv4-mapped", allowing: allowing)
        }
        if ipv4Compatible.contains(address) {
            return wrapped(low32, kind: "IPv4-compatible", allowing: allowing)
        }
        if nat64.contains(address) {
            return wrapped(low32, kind: "NAT64", allowing: allowing)
        }
        if sixToFour.contains(address) {
            return wrapped(UInt32(truncatingIfNeeded: value >> 80), kind: "6to4", allowing: allowing)
        }
        if teredo.contains(address) {
            // RFC 4380: bits 32-63 are the Teredo server, the low 32 bits the client's public
            // address with every bit inverted. Either one being internal is a reason to refuse.
            let server = wrapped(UInt32(truncatingIfNeeded: value >> 64), kind: "Teredo server", allowing: allowing)
            if server != .allowed { return server }
            return wrapped(~low32, kind: "Teredo client", allowing: allowing)
        }
        if !globalUnicast.contains(address) {
            return .blocked(reason: "reserved IPv6 space (outside global unicast 2000::/3)")
        }
        return .allowed
    }

    private static func wrapped(_ v4: UInt32, kind: String, allowing: [CIDR]) -> AddressVerdict {
        let inner = IPAddress.v4(v4)
        switch verdict(for: inner, allowing: allowing) {
        case .allowed: return .allowed
        case .blocked(let reason): return .blocked(reason: "\(kind) address wrapping \(inner): \(reason)")
        }
    }

    /// Recognises a host that names an IP address directly: a bracketed or bare IPv6 literal, a
    /// dotted quad, or any form `inet_aton` would accept (see `parseObfuscatedIPv4`).
    /// Returns nil for ordinary host names.
    public static func literalAddress(inHost host: String) -> IPAddress? {
        if let address = IPAddress(host) { return address }
        return parseObfuscatedIPv4(host)
    }
}
