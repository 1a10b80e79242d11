/// A network prefix such as `10.0.0.0/8` or `fd00::/8`, as given to `--allow-networks`.
public struct CIDR: Hashable, Sendable, CustomStringConvertible {
    /// The network address with host bits cleared.
    public let network: IPAddress
    public let prefixLength: Int

    /// Parses `address/length`; a bare address means a single host (/32 or /128). Host bits set
    /// below the prefix are cleared (`10.1.2.3/8` is `10.0.0.0/8`), as Go's `net.ParseCIDR` does.
    public init?(string: String) {
        let trimmed = string.trimmingASCIIWhitespace()
        let pieces = trimmed.split(separator: "/", omittingEmptySubsequences: false)
        guard pieces.count == 1 || pieces.count == 2,
              let address = IPAddress(String(pieces[0]))
        else { return nil }
        var length = address.bitWidth
        if pieces.count == 2 {
            let digits = pieces[1]
            guard (1...3).contains(digits.utf8.count),
                  digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                  let n = Int(digits), n <= address.bitWidth
            else { return nil }
            length = n
        }
        self.init(network: address, prefixLength: length)
    }

    /// Builds a prefix from an address and a length already known to be valid for its family.
    public init(network: IPAddress, prefixLength: Int) {
        precondition(prefixLength >= 0 && prefixLength <= network.bitWidth, "prefix length out of range")
        self.prefixLength = prefixLength
        switch network {
        case .v4(let v): self.network = .v4(v & CIDR.mask32(prefixLength))
        case .v6(let v): self.network = .v6(v & CIDR.mask128(prefixLength))
        }
    }

    /// Parses a comma-separated list (`10.0.0.0/8,fd00::/8`); returns nil naming nothing if any
    /// element is invalid, so a typo in operator config fails loudly instead of being skipped.
    public static func parseList(_ text: String) -> [CIDR]? {
        var result: [CIDR] = []
        for piece in text.split(separator: ",") {
            let item = String(piece).trimmingASCIIWhitespace()
            if item.isEmpty { continue }
            guard let cidr = CIDR(string: item) else { return nil }
            result.append(cidr)
        }
        return result
    }

    /// True when `address` is of the same family and inside this prefix. An IPv4 prefix does not
    /// match an IPv4-mapped IPv6 address here; `AddressPolicy` unwraps those itself.
    public func contains(_ address: IPAddress) -> Bool {
        switch (network, address) {
        case (.v4(let n), .v4(let a)): return a & CIDR.mask32(prefixLength) == n
        case (.v6(let n), .v6(let a)): return a & CIDR.mask128(prefixLength) == n
        default: return false
        }
    }

    public var description: String { "\(network)/\(prefixLength)" }

    static func mask32(_ length: Int) -> UInt32 {
        length == 0 ? 0 : ~UInt32(0) << UInt32(32 - length)
    }

    static func mask128(_ length: Int) -> UInt128 {
        length == 0 ? 0 : ~UInt128(0) << UInt128(128 - length)
    }
}

extension String {
    func trimmingASCIIWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let start = firstIndex(where: { !isSpace($0) }),
              let end = lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(self[start...end])
    }
}
