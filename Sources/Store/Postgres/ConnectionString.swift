import TextSupport

/// A libpq connection string (`DATABASE_URL`) read the way libpq reads it, checked before libpq
/// sees it. libpq's own parse errors quote the offending token or the whole URI (a password with
/// a bad `%` escape, a URI with an unclosed `[`), so every form libpq would refuse is refused here
/// first, with a reason that names the part and never its value.
///
/// Only the scheme, hosts, ports and database are ever shown (`redacted`);
/// the user and the passwords are secrets that `scrub` removes from libpq's messages.
public struct ConnectionString: Sendable, Equatable {
    public let isURI: Bool
    /// As written (brackets kept for IPv6), one per host of a multi-host string.
    public let hosts: [String]
    public let ports: [String]
    public let database: String?
    /// Everything that must not be printed, raw and decoded, longest first.
    let secrets: [String]
    private let scheme: String
    /// User info (URI) or any other option (conninfo) was given and is not shown.
    private let hasHiddenParts: Bool
    private let hasHiddenQuery: Bool

    public init(parsing raw: String) throws(ConnectionStringError) {
        if let scheme = Self.uriSchemes.first(where: { raw.hasPrefix($0) }) {
            let uri = try URIParts(raw.dropFirst(scheme.count))
            self.scheme = scheme
            isURI = true
            hosts = uri.hosts
            ports = uri.ports
            database = uri.database
            hasHiddenParts = uri.userinfo != nil
            hasHiddenQuery = uri.query != nil
            secrets = Self.ordered([raw] + uri.secrets)
        } else if raw.lowercased().hasPrefix("postgres"), TextScan.contains(raw, "://") {
            throw ConnectionStringError("must start with postgresql:// or postgres:// in lower case (libpq's spelling)")
        } else {
            guard let pairs = Self.parseKeywordValue(raw), !pairs.isEmpty else {
                throw ConnectionStringError("must be a postgresql:// URI or a key=value conninfo string")
            }
            scheme = ""
            isURI = false
            var hosts: [String] = [], ports: [String] = [], database: String?, hidden: [String] = [raw]
            for (key, value) in pairs {
                switch key {
                case "host", "hostaddr": hosts.append(value)
                case "port":
                    guard Self.isPortList(value) else { throw ConnectionStringError("has a port that is not a number from 1 to 65535") }
                    ports.append(value)
                case "dbname": database = value
                default: if Self.secretKeys.contains(key) { hidden.append(value) }
                }
            }
            self.hosts = hosts
            self.ports = ports
            self.database = database
            hasHiddenParts = pairs.count > hosts.count + ports.count + (database == nil ? 0 : 1)
            hasHiddenQuery = false
            secrets = Self.ordered(hidden)
        }
    }

    /// `postgresql://***@db.example.com:5432/pulse?***` or `host=db.example.com dbname=pulse ***`:
    /// where and which database, nothing else.
    public var redacted: String {
        if isURI {
            var text = scheme + (hasHiddenParts ? "***@" : "")
            text += zip(hosts, ports).map { host, port in port.isEmpty ? host : host + ":" + port }.joined(separator: ",")
            if let database { text += "/" + database }
            return text + (hasHiddenQuery ? "?***" : "")
        }
        var parts = hosts.map { "host=" + $0 } + ports.map { "port=" + $0 }
        if let database { parts.append("dbname=" + database) }
        if hasHiddenParts { parts.append("***") }
        return parts.joined(separator: " ")
    }

    /// `text` with every secret replaced by `***`. libpq and the server quote the values they name
    /// ("user \"u\""), so a short or all-letter secret, or any secret with `quotedOnly` (server
    /// messages about tables and data), is replaced only where quoted; another one wherever it occurs.
    public func scrub(_ text: String, quotedOnly: Bool = false) -> String {
        var result = text
        for secret in secrets {
            result = TextScan.replacingLiteral("\"" + secret + "\"", with: "\"***\"", in: result)
            if !quotedOnly && Self.isScrubbedBare(secret) {
                result = TextScan.replacingLiteral(secret, with: "***", in: result)
            }
        }
        return result
    }

    /// The values that are secret: the user and the passwords. Other parameters (`sslmode=require`,
    /// `connect_timeout=10`) are settings, and scrubbing them damaged libpq's own words ("SSL was
    /// required" came out as "SSL was ***d").
    static let secretKeys: Set<String> = ["user", "password", "sslpassword"]

    /// A secret made of letters alone may be an ordinary word of libpq's messages (a password
    /// `server` turned "connection to server at" into "connection to *** at"): it is scrubbed only
    /// where quoted, as libpq and the server quote the values they name. Any other secret of
    /// `bareSecretMinimum` characters or more is scrubbed wherever it occurs.
    static func isScrubbedBare(_ secret: String) -> Bool {
        secret.count >= bareSecretMinimum && !secret.utf8.allSatisfy { ($0 | 0x20) >= 0x61 && ($0 | 0x20) <= 0x7a }
    }

    static let uriSchemes = ["postgresql://", "postgres://"]
    static let bareSecretMinimum = 4

    private static func ordered(_ values: [String]) -> [String] {
        Array(Set(values.filter { !$0.isEmpty })).sorted { $0.count != $1.count ? $0.count > $1.count : $0 < $1 }
    }

    static func isPortList(_ value: String) -> Bool {
        value.split(separator: ",", omittingEmptySubsequences: false).allSatisfy { port in
            port.isEmpty || (port.allSatisfy(\.isASCII) && UInt16(port).map { $0 > 0 } == true)
        }
    }

    /// libpq conninfo: `key = value` pairs separated by whitespace; values are bare (with `\`
    /// escapes) or single-quoted. Hand-written because no available library parses it; nil when
    /// malformed.
    static func parseKeywordValue(_ text: String) -> [(String, String)]? {
        var pairs: [(String, String)] = []
        var chars = Array(text)[...]
        func skipSpaces() { while let c = chars.first, c.isWhitespace { chars.removeFirst() } }
        while true {
            skipSpaces()
            guard !chars.isEmpty else { return pairs }
            var key = ""
            while let c = chars.first, !c.isWhitespace, c != "=" { key.append(c); chars.removeFirst() }
            skipSpaces()
            guard !key.isEmpty, key.allSatisfy({ $0.isLetter || $0 == "_" }), chars.first == "=" else { return nil }
            chars.removeFirst()
            skipSpaces()
            var value = ""
            if chars.first == "'" {
                chars.removeFirst()
                var closed = false
                while let c = chars.popFirst() {
                    if c == "\\", let next = chars.popFirst() { value.append(next); continue }
                    if c == "'" { closed = true; break }
                    value.append(c)
                }
                guard closed else { return nil }
            } else {
                while let c = chars.first, !c.isWhitespace {
                    chars.removeFirst()
                    if c == "\\", let next = chars.popFirst() { value.append(next) } else { value.append(c) }
                }
            }
            pairs.append((key.lowercased(), value))
        }
    }
}

/// Why a connection string was refused; never holds any of its text.
public struct ConnectionStringError: Error, Sendable, Equatable, CustomStringConvertible {
    public let reason: String
    init(_ reason: String) { self.reason = reason }
    public var description: String { reason + " (value not shown)" }
}

/// The parts of a URI after its scheme, split as libpq's `conninfo_uri_parse_options` splits
/// them: the user info ends at the first `@` before any `/`; hosts are `[v6]` or run to `:`, `/`,
/// `?` or `,`; every part is percent-decoded, where a bad escape or `%00` is an error.
private struct URIParts {
    var userinfo: Substring?
    var hosts: [String] = []
    var ports: [String] = []
    var database: String?
    var query: Substring?
    var secrets: [String] = []

    init(_ text: Substring) throws(ConnectionStringError) {
        var rest = text
        if let end = rest.firstIndex(where: { $0 == "@" || $0 == "/" }), rest[end] == "@" {
            let info = rest[..<end]
            userinfo = info
            rest = rest[rest.index(after: end)...]
            let colon = info.firstIndex(of: ":")
            let user = info[..<(colon ?? info.endIndex)]
            secrets += [String(info), String(user), try Self.decode(user, part: "user name")]
            if let colon {
                let password = info[info.index(after: colon)...]
                secrets += [String(password), try Self.decode(password, part: "password")]
            }
        }
        // An unencoded '@' in a password moves the rest of it into the host (and into libpq's
        // "could not translate host name" message); query values may hold one (user=a@b).
        guard !rest.prefix(while: { $0 != "?" }).contains("@") else {
            throw ConnectionStringError("has an '@' after the user name and password: percent-encode '@' and '/' "
                + "in them as %40 and %2F")
        }
        while true {
            var host: Substring
            if rest.first == "[" {
                guard let close = rest.firstIndex(of: "]") else {
                    throw ConnectionStringError("has an IPv6 host address without its closing ']'")
                }
                host = rest[...close]
                guard host.count > 2 else { throw ConnectionStringError("has an empty IPv6 host address") }
                rest = rest[rest.index(after: close)...]
            } else {
                let end = rest.firstIndex(where: { ":/?,".contains($0) }) ?? rest.endIndex
                host = rest[..<end]
                rest = rest[end...]
                _ = try Self.decode(host, part: "host")
            }
            var port: Substring = ""
            if rest.first == ":" {
                let end = rest.firstIndex(where: { "/?,".contains($0) }) ?? rest.endIndex
                port = rest[rest.index(after: rest.startIndex)..<end]
                rest = rest[end...]
                guard ConnectionString.isPortList(String(port)) else {
                    throw ConnectionStringError("has a port that is not a number from 1 to 65535")
                }
            }
            guard rest.isEmpty || "/?,".contains(rest.first!) else {
                throw ConnectionStringError("has an unexpected character after a host (expected ':', '/', '?' or ',')")
            }
            hosts.append(String(host))
            ports.append(String(port))
            guard rest.first == "," else { break }
            rest = rest.dropFirst()
        }
        if rest.first == "/" {
            let end = rest.firstIndex(of: "?") ?? rest.endIndex
            let path = rest[rest.index(after: rest.startIndex)..<end]
            rest = rest[end...]
            if !path.isEmpty {
                _ = try Self.decode(path, part: "database name")
                database = String(path)
            }
        }
        if rest.first == "?" {
            let parameters = rest.dropFirst()
            query = parameters
            for parameter in parameters.split(separator: "&") {
                let pieces = parameter.split(separator: "=", omittingEmptySubsequences: false)
                guard pieces.count == 2, !pieces[0].isEmpty else {
                    throw ConnectionStringError("has a query parameter that is not exactly one key=value")
                }
                let key = try Self.decode(pieces[0], part: "query parameter")
                let value = try Self.decode(pieces[1], part: "query parameter")
                if ConnectionString.secretKeys.contains(key) { secrets += [String(pieces[1]), value] }
            }
        }
    }

    /// libpq's `conninfo_uri_decode`: `%` must be followed by two hex digits, and `%00` is refused.
    static func decode(_ text: Substring, part: String) throws(ConnectionStringError) -> String {
        var bytes: [UInt8] = []
        var utf8 = text.utf8[...]
        while let byte = utf8.popFirst() {
            guard byte == UInt8(ascii: "%") else { bytes.append(byte); continue }
            guard let high = utf8.popFirst().flatMap(TextScan.hexDigitValue),
                  let low = utf8.popFirst().flatMap(TextScan.hexDigitValue) else {
                throw ConnectionStringError("has an invalid percent escape in the \(part) ('%' must be followed by two hex digits)")
            }
            guard high | low != 0 else { throw ConnectionStringError("has %00 in the \(part), which libpq refuses") }
            bytes.append(high << 4 | low)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

