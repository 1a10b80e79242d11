import PulseModel

/// Settings that come from the process environment (secrets and deployment knobs never live in
/// feeds.yaml). Build it from `ProcessInfo.processInfo.environment`.
public struct EnvironmentSettings: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    public enum LogLevel: String, Sendable, Equatable, CaseIterable {
        case trace, debug, info, notice, warning, error, critical
    }

    /// `DATABASE_URL` as given (libpq URI or conninfo), for handing to libpq; nil when unset.
    /// Never log it: print `redactedDatabaseURL` (or the settings themselves, which redact).
    public var databaseURL: String?
    /// The validated, redactable form of `databaseURL`.
    public var database: DatabaseURL?
    /// `PULSE_USER_AGENT`, overriding `fetch.user_agent` when set.
    public var userAgent: String?
    public var statementTimeoutMilliseconds: Int
    public var lockTimeoutMilliseconds: Int
    /// `PULSE_ALLOW_NETWORKS`, kept raw for the address policy to parse.
    public var allowNetworks: String?
    /// `PULSE_RESOLVE`: curl `--resolve` pins (`host:port:address`, comma-separated) for names that
    /// should reach a given address (split-horizon setups, the loopback demo). The address is still
    /// checked by the SSRF policy when the connection is made.
    public var resolve: [String] = []
    public var autoMigrate: Bool
    public var logLevel: LogLevel

    public static let timeoutRange = 1...3_600_000

    /// Reads the variables; every invalid one is reported in one `EnvironmentError`.
    /// Empty values count as unset.
    public init(environment: [String: String]) throws {
        try self.init(lookup: { environment[$0] })
    }

    /// The same, reading each variable through `lookup` (the process passes getenv: building
    /// ProcessInfo's dictionary of the whole environment was a few percent of a start).
    public init(lookup: (String) -> String?) throws {
        var problems: [EnvironmentError.Problem] = []
        func value(_ name: String) -> String? {
            guard let raw = lookup(name), !raw.isEmpty else { return nil }
            return raw
        }
        func milliseconds(_ name: String, default fallback: Int) -> Int {
            guard let raw = value(name) else { return fallback }
            guard let number = Int(raw), Self.timeoutRange.contains(number) else {
                problems.append(.init(variable: name, message: "must be a whole number of milliseconds between "
                    + "\(Self.timeoutRange.lowerBound) and \(Self.timeoutRange.upperBound) (got '\(FieldRules.printable(raw))')"))
                return fallback
            }
            return number
        }

        databaseURL = nil
        database = nil
        if let raw = value("DATABASE_URL") {
            do {
                database = try DatabaseURL(raw)
                databaseURL = raw
            } catch let problem as DatabaseURL.Invalid {
                problems.append(.init(variable: "DATABASE_URL", message: problem.reason))
            }
        }
        userAgent = value("PULSE_USER_AGENT")
        if let agent = userAgent, let problem = userAgentProblem(agent) {
            problems.append(.init(variable: "PULSE_USER_AGENT", message: problem))
            userAgent = nil
        }
        statementTimeoutMilliseconds = milliseconds("PULSE_STATEMENT_TIMEOUT_MS", default: 30_000)
        lockTimeoutMilliseconds = milliseconds("PULSE_LOCK_TIMEOUT_MS", default: 5_000)
        allowNetworks = value("PULSE_ALLOW_NETWORKS")
        if let pins = value("PULSE_RESOLVE") {
            resolve = pins.split(separator: ",").map { TextScan.trimming($0, while: TextScan.isBlank) }.filter { !$0.isEmpty }
            if let bad = resolve.first(where: { !Self.isResolvePin($0) }) {
                problems.append(.init(variable: "PULSE_RESOLVE",
                                      message: "'\(bad)' is not host:port:address (for example news.example:443:192.0.2.10)"))
                resolve = []
            }
        }
        autoMigrate = false
        switch value("PULSE_AUTO_MIGRATE") {
        case nil, "0": autoMigrate = false
        case "1": autoMigrate = true
        case let raw?:
            problems.append(.init(variable: "PULSE_AUTO_MIGRATE",
                                  message: "must be 0 or 1 (got '\(FieldRules.printable(raw))')"))
        }
        logLevel = .info
        if let raw = value("PULSE_LOG_LEVEL") {
            if let level = LogLevel(rawValue: raw.lowercased()) {
                logLevel = level
            } else {
                let known = LogLevel.allCases.map(\.rawValue).joined(separator: ", ")
                problems.append(.init(variable: "PULSE_LOG_LEVEL",
                                      message: "must be one of \(known) (got '\(FieldRules.printable(raw))')"))
            }
        }
        if !problems.isEmpty { throw EnvironmentError(problems: problems) }
    }

    /// The database URL for modes that need one, else an error naming DATABASE_URL.
    public func requireDatabaseURL() throws -> String {
        guard let databaseURL else {
            throw EnvironmentError(problems: [.init(variable: "DATABASE_URL",
                message: "is required for this mode (a libpq URI such as postgres://user@host/db, or a conninfo string)")])
        }
        return databaseURL
    }

    /// The user agent to send: the environment override, else the configured one.
    /// `host:port:address` with a DNS name, a port and an IPv4 or bracketed IPv6 address.
    static func isResolvePin(_ pin: String) -> Bool {
        let parts = pin.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, let port = Int(parts[1]), (1...65_535).contains(port) else { return false }
        let host = parts[0], address = parts[2]
        let hostOK = !host.isEmpty && host.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") }
        let v4 = address.split(separator: ".").count == 4 && address.allSatisfy { $0.isNumber || $0 == "." }
        let v6 = address.hasPrefix("[") && address.hasSuffix("]") && address.dropFirst().dropLast().allSatisfy { $0.isHexDigit || $0 == ":" }
        return hostOK && (v4 || v6)
    }

    public func effectiveUserAgent(_ fetch: FetchSettings) -> String { userAgent ?? fetch.userAgent }

    public var redactedDatabaseURL: String? { database?.redacted }

    public var description: String {
        var parts = ["DATABASE_URL=\(redactedDatabaseURL ?? "<unset>")"]
        parts.append("PULSE_USER_AGENT=\(userAgent ?? "<default>")")
        parts.append("PULSE_STATEMENT_TIMEOUT_MS=\(statementTimeoutMilliseconds)")
        parts.append("PULSE_LOCK_TIMEOUT_MS=\(lockTimeoutMilliseconds)")
        parts.append("PULSE_ALLOW_NETWORKS=\(allowNetworks ?? "<unset>")")
        parts.append("PULSE_RESOLVE=\(resolve.isEmpty ? "<unset>" : resolve.joined(separator: ","))")
        parts.append("PULSE_AUTO_MIGRATE=\(autoMigrate ? 1 : 0)")
        parts.append("PULSE_LOG_LEVEL=\(logLevel.rawValue)")
        return "EnvironmentSettings(" + parts.joined(separator: ", ") + ")"
    }

    public var debugDescription: String { description }

    /// `dump()` and debuggers use the mirror: show the redacted form only.
    public var customMirror: Mirror {
        Mirror(self, children: ["description": description], displayStyle: .struct)
    }
}

/// One or more invalid environment variables.
public struct EnvironmentError: Error, Sendable, Equatable, CustomStringConvertible {
    public struct Problem: Sendable, Equatable, CustomStringConvertible {
        public var variable: String
        public var message: String
        public var description: String { "\(variable) \(message)" }
    }

    public var problems: [Problem]

    public var description: String { problems.map(\.description).joined(separator: "\n") }
}
