#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The `--metrics-address HOST:PORT` value: an IP literal (IPv6 in brackets) or `localhost`,
/// and a mandatory port (0 asks the kernel for an ephemeral one).
public struct MetricsAddress: Sendable, Hashable, CustomStringConvertible {
    public enum Family: Sendable, Hashable { case ipv4, ipv6 }

    /// The numeric host as given (`localhost` becomes `127.0.0.1`), without brackets.
    public let host: String
    public let port: UInt16
    public let family: Family

    public init(host: String, port: UInt16) throws(MetricsAddressError) {
        let numericHost = host.lowercased() == "localhost" ? "127.0.0.1" : host
        if Self.parseIPv4(numericHost) != nil {
            family = .ipv4
        } else if Self.parseIPv6(numericHost) != nil {
            family = .ipv6
        } else {
            throw .invalidHost(host)
        }
        self.host = numericHost
        self.port = port
    }

    /// Parses `127.0.0.1:9464`, `[::1]:9464` or `localhost:9464`. Hostnames other than
    /// `localhost` are refused: binding should not depend on DNS.
    public init(parsing text: String) throws(MetricsAddressError) {
        let hostPart: Substring
        let portPart: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw .invalidHost(text) }
            hostPart = text[text.index(after: text.startIndex)..<close]
            let afterBracket = text[text.index(after: close)...]
            guard afterBracket.hasPrefix(":") else { throw .missingPort(text) }
            portPart = afterBracket.dropFirst()
        } else {
            guard let colon = text.lastIndex(of: ":") else { throw .missingPort(text) }
            hostPart = text[..<colon]
            // An unbracketed IPv6 literal ("::1:9464") is ambiguous.
            guard !hostPart.contains(":") else { throw .invalidHost(text) }
            portPart = text[text.index(after: colon)...]
        }
        guard !hostPart.isEmpty else { throw .invalidHost(text) }
        guard !portPart.isEmpty else { throw .missingPort(text) }
        guard portPart.count <= 5, portPart.allSatisfy({ $0.isASCII && $0.isNumber }),
              let port = UInt16(portPart) else { throw .invalidPort(text) }
        try self.init(host: String(hostPart), port: port)
    }

    /// 127.0.0.0/8 or ::1 (also ::ffff:127.x.y.z).
    public var isLoopback: Bool {
        switch family {
        case .ipv4:
            return Self.parseIPv4(host).map { UInt32(bigEndian: $0.s_addr) >> 24 == 127 } ?? false
        case .ipv6:
            guard let address = Self.parseIPv6(host) else { return false }
            let bytes = withUnsafeBytes(of: address) { Array($0) }
            if bytes[0..<15].allSatisfy({ $0 == 0 }) && bytes[15] == 1 { return true }
            let mapped = bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF
            return mapped && bytes[12] == 127
        }
    }

    public var description: String {
        family == .ipv6 ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    static func parseIPv4(_ text: String) -> in_addr? {
        var address = in_addr()
        return inet_pton(AF_INET, text, &address) == 1 ? address : nil
    }

    static func parseIPv6(_ text: String) -> in6_addr? {
        var address = in6_addr()
        return inet_pton(AF_INET6, text, &address) == 1 ? address : nil
    }
}

public enum MetricsAddressError: Error, Sendable, Equatable, CustomStringConvertible {
    case missingPort(String)
    case invalidPort(String)
    case invalidHost(String)

    public var description: String {
        switch self {
        case .missingPort(let text): "metrics address \"\(text)\" has no port (expected HOST:PORT)"
        case .invalidPort(let text): "metrics address \"\(text)\" has an invalid port (0-65535)"
        case .invalidHost(let text): "metrics address \"\(text)\" needs an IP literal or localhost ([::1] for IPv6)"
        }
    }
}
