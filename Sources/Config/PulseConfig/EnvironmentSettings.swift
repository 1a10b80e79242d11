import PulseModel

/// Settings that come from the process environment (secrets and deployment knobs never live in
/// feeds.yaml).
public struct EnvironmentSettings: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    public enum LogLevel: String, Sendable, Equatable, CaseIterable {
        case trace, debug, info, notice, warning, error, critical
    }

    /// `DATABASE_URL` as given (libpq URI or conninfo), for handing to libpq; nil when unset.
    /// Never log it (the settings themselves never show it). Checked by the modes that connect
    /// (`RunContext.requiredDatabaseURL` in the executable, with Postgres' `ConnectionString`).
    public var databaseURL: String?
    /// `PULSE_USER_AGENT`, `PULSE_RESOLVE`, `PULSE_CA_FILE` and `PULSE_CA_PATH`.
    public var fetch: FetchEnvironment
    public var statementTimeoutMilliseconds: Int
    public var lockTimeoutMilliseconds: Int
    /// `PULSE_ALLOW_NETWORKS`, kept raw for the address policy to parse.
    public var allowNetworks: String?
    public var autoMigrate: Bool
    public var logLevel: LogLevel

    public static let timeoutRange = 1...3_600_000

    /// Reads the variables, each through `lookup` (the process passes getenv: building
    /// ProcessInfo's dictionary of the whole environment was a few percent of a start); every
    /// invalid one is reported in one `EnvironmentError`. Empty values count as unset.
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

        databaseURL = value("DATABASE_URL")
        fetch = FetchEnvironment(lookup: value, problems: &problems)
        statementTimeoutMilliseconds = milliseconds("PULSE_STATEMENT_TIMEOUT_MS", default: 30_000)
        lockTimeoutMilliseconds = milliseconds("PULSE_LOCK_TIMEOUT_MS", default: 5_000)
        allowNetworks = value("PULSE_ALLOW_NETWORKS")
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

    public var description: String {
        var parts = ["DATABASE_URL=\(databaseURL == nil ? "<unset>" : "<set>")"] + fetch.descriptionParts
        parts.append("PULSE_STATEMENT_TIMEOUT_MS=\(statementTimeoutMilliseconds)")
        parts.append("PULSE_LOCK_TIMEOUT_MS=\(lockTimeoutMilliseconds)")
        parts.append("PULSE_ALLOW_NETWORKS=\(allowNetworks ?? "<unset>")")
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
