import Foundation

/// `DATABASE_URL`: a libpq URI (`postgres://` / `postgresql://`) or a conninfo string
/// (`host=... password=...`). Printing it in any way shows only the redacted form; the secret is
/// reachable solely through `connectionString`, which is for handing to libpq.
public struct DatabaseURL: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    struct Invalid: Error {
        let reason: String
    }

    /// The raw value for `PQconnectdb`. Never log this.
    public let connectionString: String
    /// The same with every password replaced by `***`.
    public let redacted: String
    public let isURI: Bool

    public init(_ raw: String) throws {
        // Messages never echo the value: it may be a secret.
        guard !raw.unicodeScalars.contains(where: FieldRules.isControlOrBidi) else {
            throw Invalid(reason: "contains control characters (value not shown)")
        }
        let lowered = raw.lowercased()
        if lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://") {
            isURI = true
            redacted = Self.redactURI(raw)
        } else if let pairs = Self.parseConninfo(raw), !pairs.isEmpty {
            isURI = false
            redacted = pairs.map { key, value in
                key + "=" + (key.lowercased().contains("password") ? "***" : Self.quoteConninfo(value))
            }.joined(separator: " ")
        } else {
            throw Invalid(reason: "must be a postgres:// or postgresql:// URI or a key=value conninfo string "
                + "(value not shown)")
        }
        connectionString = raw
    }

    public var description: String { redacted }
    public var debugDescription: String { "DatabaseURL(\(redacted))" }
    public var customMirror: Mirror { Mirror(self, children: ["redacted": redacted], displayStyle: .struct) }

    /// Hides the password of `user:password@` and any `password`-like query parameter. The
    /// userinfo ends at the last `@` before the query, which over-redacts rather than leaks when
    /// a password holds an unescaped `/` or `@`.
    private static func redactURI(_ uri: String) -> String {
        guard let schemeEnd = uri.range(of: "://") else { return uri }
        let head = uri[..<schemeEnd.upperBound]
        var rest = Substring(uri[schemeEnd.upperBound...])
        var query: Substring?
        if let question = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: question)...]
            rest = rest[..<question]
        }
        var result = String(head)
        if let at = rest.lastIndex(of: "@") {
            let userinfo = rest[..<at]
            if let colon = userinfo.firstIndex(of: ":") {
                result += userinfo[..<colon] + ":***"
            } else {
                result += userinfo
            }
            result += rest[at...]
        } else {
            result += rest
        }
        if let query {
            let parameters = query.split(separator: "&", omittingEmptySubsequences: false).map { parameter in
                guard let equals = parameter.firstIndex(of: "=") else { return String(parameter) }
                let key = parameter[..<equals]
                return key.lowercased().contains("password") ? key + "=***" : String(parameter)
            }
            result += "?" + parameters.joined(separator: "&")
        }
        return result
    }

    /// libpq conninfo: `key = value` pairs separated by whitespace; values are bare (with `\`
    /// escapes) or single-quoted. Hand-written because no available library parses it; nil when
    /// malformed.
    static func parseConninfo(_ text: String) -> [(String, String)]? {
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
            pairs.append((key, value))
        }
    }

    private static func quoteConninfo(_ value: String) -> String {
        let needsQuotes = value.isEmpty || value.contains { $0.isWhitespace || $0 == "'" || $0 == "\\" }
        guard needsQuotes else { return value }
        let escaped = value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'")
        return "'" + escaped + "'"
    }
}
