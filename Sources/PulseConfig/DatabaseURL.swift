import Postgres

/// `DATABASE_URL`: a libpq URI (`postgresql://` / `postgres://`) or a conninfo string
/// (`host=... password=...`), checked by the rules libpq applies (see `ConnectionString`) so a
/// malformed one is refused at start with a reason instead of libpq quoting it back on every retry.
/// Printing it in any way shows only scheme, host, port and database; the rest is reachable solely
/// through `connectionString`, which is for handing to libpq.
public struct DatabaseURL: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    struct Invalid: Error {
        let reason: String
    }

    /// The raw value for `PQconnectdb`. Never log this.
    public let connectionString: String
    /// Scheme, hosts, ports and database only; `***` marks the hidden rest.
    public let redacted: String
    public let isURI: Bool

    public init(_ raw: String) throws {
        // Messages never echo the value: it may be a secret.
        guard !raw.unicodeScalars.contains(where: FieldRules.isControlOrBidi) else {
            throw Invalid(reason: "contains control characters (value not shown)")
        }
        do {
            let parsed = try ConnectionString(parsing: raw)
            isURI = parsed.isURI
            redacted = parsed.redacted
        } catch {
            throw Invalid(reason: error.description)
        }
        connectionString = raw
    }

    public var description: String { redacted }
    public var debugDescription: String { "DatabaseURL(\(redacted))" }
    public var customMirror: Mirror { Mirror(self, children: ["redacted": redacted], displayStyle: .struct) }
}
