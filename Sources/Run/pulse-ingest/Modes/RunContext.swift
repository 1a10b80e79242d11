import AddressPolicy
import ArgumentParser
import FoundationEssentials
import Glibc
import Logging
import Postgres
import PulseConfig

/// Exit statuses shared by every mode (sysexits.h where one fits).
enum ExitStatus {
    static let success: Int32 = 0
    static let someFailed: Int32 = 3
    static let allFailed: Int32 = 4
    static let usage: Int32 = 64       // EX_USAGE: bad flags or configuration
    static let dataError: Int32 = 65   // EX_DATAERR: unreadable input document
    static let unavailable: Int32 = 69 // EX_UNAVAILABLE: database unreachable or failing
}

/// What every mode starts from: the validated config, the environment, a logger.
struct RunContext {
    let configPath: String
    let configuration: PulseConfiguration
    let environment: EnvironmentSettings
    let logger: Logger
    /// `--allow-networks` / `PULSE_ALLOW_NETWORKS`: also where a source URL's IP-literal host may be.
    let allowedNetworks: [CIDR]

    /// Loads and validates the config; prints every problem and exits 64 when it is not usable.
    init(configPath explicit: String?, logger: Logger, allowedNetworks: [CIDR]) throws {
        self.logger = logger
        self.allowedNetworks = allowedNetworks
        guard let path = ConfigLoader.resolvePath(explicit: explicit, fileExists: {
            FileManager.default.fileExists(atPath: $0)
        }) else {
            Self.printError(explicit.map { "config file not found: \($0)" }
                ?? "no config file: looked for \(ConfigLoader.defaultSearchPaths.joined(separator: ", ")); pass --config PATH")
            throw ExitCode(ExitStatus.usage)
        }
        configPath = path
        do {
            configuration = try ConfigLoader.load(path: path, allowedNetworks: allowedNetworks)
            environment = try EnvironmentSettings(lookup: PulseIngest.environmentValue)
        } catch {
            Self.printError("\(error)")
            throw ExitCode(ExitStatus.usage)
        }
    }

    /// For a mode that reads the database only (`--export-sources`): the environment, no config file.
    init(withoutConfig logger: Logger) throws {
        self.logger = logger
        allowedNetworks = []
        configPath = ""
        configuration = PulseConfiguration()
        do {
            environment = try EnvironmentSettings(lookup: PulseIngest.environmentValue)
        } catch {
            Self.printError("\(error)")
            throw ExitCode(ExitStatus.usage)
        }
    }

    func fail(_ message: String) { Self.printError(message) }

    /// `DATABASE_URL`, or nil after saying it is not set or why libpq would refuse it (the mode then
    /// exits with `ExitStatus.usage`). The one check of DATABASE_URL: the modes that connect call it.
    func requiredDatabaseURL() -> String? {
        guard let conninfo = environment.databaseURL else {
            // The newcomer's case: `make run` started a private cluster, whose URL `make db-url` prints.
            fail("DATABASE_URL is not set (a libpq URI or conninfo string; for the private PostgreSQL of "
                 + "`make run`: export DATABASE_URL=\"$(make -s db-url)\")")
            return nil
        }
        do {
            _ = try ConnectionString(databaseURL: conninfo)
        } catch {
            // The reason names the part that is wrong, never the value.
            fail("DATABASE_URL \(error)")
            return nil
        }
        return conninfo
    }

    /// How the ingest modes connect: session timeouts from the environment, as `service_role`.
    func connectionSettings(_ conninfo: String) -> ConnectionSettings {
        ConnectionSettings(conninfo: conninfo,
                           statementTimeoutMilliseconds: environment.statementTimeoutMilliseconds,
                           lockTimeoutMilliseconds: environment.lockTimeoutMilliseconds)
    }

    /// Connects with `settings`, runs `body` and closes the connection; an error of either is
    /// printed and the mode exits with `ExitStatus.unavailable`.
    func withConnection(_ settings: ConnectionSettings,
                        _ body: (PostgresConnection) async throws -> Int32) async -> Int32 {
        do {
            let connection = try await PostgresConnection.connect(settings: settings, logger: logger)
            let status = try await body(connection)
            await connection.close()
            return status
        } catch {
            fail("\(error)")
            return ExitStatus.unavailable
        }
    }

    static func printError(_ message: String) {
        writeToStandardError("pulse-ingest: \(message)\n")
    }
}

