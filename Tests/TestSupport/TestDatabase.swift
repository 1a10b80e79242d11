import Foundation
import Logging
import Migrations
import Postgres
import Testing

extension Tag {
    /// Needs the real PostgreSQL that `make test` (or `.ci/run`) starts.
    @Tag public static var integration: Self
}

extension Trait where Self == ConditionTrait {
    /// Runs with the test cluster `make test` starts; skipped without it (`make test-unit`).
    public static var needsDatabase: Self {
        .enabled(if: TestDatabase.isConfigured, "PULSE_TEST_DATABASE_URL is not set: `make test` starts PostgreSQL")
    }

    /// Runs with the transaction-mode pooler `make test` starts in front of the test cluster.
    public static var needsPooler: Self {
        .enabled(if: TestDatabase.isPoolerConfigured,
                 "PULSE_TEST_POOLER_URL is not set: `make test` starts pgbouncer (.ci/local-pgbouncer)")
    }
}

/// A throw-away database on the test cluster, one per test, so tests run in parallel.
public struct TestDatabase: Sendable {
    public let name: String
    public let url: String
    public static let logger = Logger(label: "test")

    /// Whether `make test`'s cluster is there: PULSE_TEST_DATABASE_URL set.
    public static var isConfigured: Bool { isSet("PULSE_TEST_DATABASE_URL") }

    /// Whether `make test`'s pooler is there: PULSE_TEST_POOLER_URL set.
    public static var isPoolerConfigured: Bool { isSet("PULSE_TEST_POOLER_URL") }

    private static func isSet(_ name: String) -> Bool {
        !(ProcessInfo.processInfo.environment[name] ?? "").isEmpty
    }

    /// The superuser URL of the cluster `make test` started (a libpq URI).
    public static var adminURL: String {
        get throws {
            try environmentURL("PULSE_TEST_DATABASE_URL", startedBy: "a private PostgreSQL (or export it pointing at a superuser URI)")
        }
    }

    /// A URL `make test` puts in the environment, or an error saying what starts it.
    public static func environmentURL(_ name: String, startedBy what: String) throws -> String {
        guard let url = ProcessInfo.processInfo.environment[name], !url.isEmpty else {
            throw TestSetupError("\(name) is not set: run the tests with `make test`, which starts \(what)")
        }
        return url
    }

    public static func create() async throws -> TestDatabase {
        let admin = try adminURL
        let name = "pulse_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let connection = try await PostgresConnection.connect(
            settings: ConnectionSettings(conninfo: admin, assumeServiceRole: false), logger: logger)
        // Identifiers cannot be parameters; `name` is ours (hex digits), never input.
        try await connection.runOutsideTransaction("CREATE DATABASE \(name)", label: "create test database")
        await connection.close()
        return TestDatabase(name: name, url: replacingDatabase(in: admin, with: name))
    }

    /// Settings for this database; `serviceRole` mirrors how the worker connects.
    public func settings(serviceRole: Bool = true) -> ConnectionSettings {
        var settings = ConnectionSettings(conninfo: url, assumeServiceRole: serviceRole)
        settings.reconnect = ReconnectPolicy(initialDelay: .milliseconds(50), maximumDelay: .seconds(1),
                                             maximumAttempts: 10)
        return settings
    }

    public func connect(serviceRole: Bool = true) async throws -> PostgresConnection {
        try await PostgresConnection.connect(settings: settings(serviceRole: serviceRole), logger: Self.logger)
    }

    /// A connection migrated to the full schema, writing as `service_role` like the worker.
    public func migratedConnection() async throws -> PostgresConnection {
        let admin = try await connect(serviceRole: false)
        _ = try await Migrator(logger: Self.logger).migrate(on: admin)
        await admin.close()
        return try await connect()
    }

    public func drop() async {
        guard let admin = try? Self.adminURL,
              let connection = try? await PostgresConnection.connect(
                settings: ConnectionSettings(conninfo: admin, assumeServiceRole: false), logger: Self.logger)
        else { return }
        _ = try? await connection.runOutsideTransaction("DROP DATABASE IF EXISTS \(name) WITH (FORCE)", label: "drop test database")
        await connection.close()
    }

    public static func replacingDatabase(in uri: String, with name: String) -> String {
        let query = uri.firstIndex(of: "?").map { String(uri[$0...]) } ?? ""
        let base = query.isEmpty ? uri : String(uri[..<uri.firstIndex(of: "?")!])
        guard let schemeEnd = base.range(of: "://"),
              let slash = base[schemeEnd.upperBound...].firstIndex(of: "/") else { return base + "/" + name + query }
        return String(base[..<slash]) + "/" + name + query
    }

    /// Runs `body` with a fresh database and drops it afterwards, whatever happens.
    public static func with<T: Sendable>(_ body: (TestDatabase) async throws -> T) async throws -> T {
        let database = try await create()
        do {
            let value = try await body(database)
            await database.drop()
            return value
        } catch {
            await database.drop()
            throw error
        }
    }
}

public struct TestSetupError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Reads a fixture in the Fixtures folder of the calling test target (`filePath`: a file at its top).
public func fixture(_ name: String, filePath: String = #filePath) throws -> String {
    let url = URL(fileURLWithPath: filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures").appendingPathComponent(name)
    return try String(contentsOf: url, encoding: .utf8)
}
