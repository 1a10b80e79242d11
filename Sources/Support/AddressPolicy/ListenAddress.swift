/// Where a listener binds: `HOST:PORT` with an IP literal (IPv6 in brackets) or `localhost`, and a
/// port (0 asks the kernel for one). The one parser of `--metrics-address` and `websub.listen`;
/// hostnames other than `localhost` are refused, so binding never depends on DNS.
public struct ListenAddress: Sendable, Hashable, CustomStringConvertible {
    /// The numeric host as given (`localhost` becomes `127.0.0.1`), without brackets.
    public let host: String
    public let port: UInt16
    public let address: IPAddress

    public init(host: String, port: UInt16) throws(ListenAddressError) {
        let numeric = host.lowercased() == "localhost" ? "127.0.0.1" : host
        // Brackets belong to the HOST:PORT form, not to the host.
        guard !numeric.hasPrefix("["), let address = IPAddress(numeric) else { throw .invalidHost(host) }
        self.host = numeric
        self.port = port
        self.address = address
    }

    /// Parses `127.0.0.1:9464`, `[::1]:9464` or `localhost:9464`.
    public init(parsing text: String) throws(ListenAddressError) {
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
        guard portPart.utf8.count <= 5, portPart.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
              let port = UInt16(portPart) else { throw .invalidPort(text) }
        try self.init(host: String(hostPart), port: port)
    }

    public var isIPv6: Bool { !address.isIPv4 }

    /// 127.0.0.0/8 or ::1 (also ::ffff:127.x.y.z).
    public var isLoopback: Bool {
        switch address {
        case .v4(let value): value >> 24 == 127
        case .v6(let value): value == 1 || (value >> 32 == 0xFFFF && (value >> 24) & 0xFF == 127)
        }
    }

    public var description: String { isIPv6 ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

public enum ListenAddressError: Error, Sendable, Equatable, CustomStringConvertible {
    case missingPort(String)
    case invalidPort(String)
    case invalidHost(String)

    public var description: String {
        switch self {
        case .missingPort(let text): "address \"\(text)\" has no port (expected HOST:PORT)"
        case .invalidPort(let text): "address \"\(text)\" has an invalid port (0-65535)"
        case .invalidHost(let text): "address \"\(text)\" needs an IP literal or localhost ([::1] for IPv6)"
        }
    }
}
