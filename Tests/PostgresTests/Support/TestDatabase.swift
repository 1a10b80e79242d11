import Foundation
import Logging
import Migrations
import Postgres
import Testing

extension Tag {
    /// Needs the real PostgreSQL that `make test` (or `.ci/run`) starts.
    @Tag static var integration: Self
}

/// A throw-away database on the test cluster, one per test, so tests run in parallel.
struct TestDatabase {
    let name: String
    let url: String
    static let logger = Logger(label: "test")

    /// The superuser URL of the cluster `make test` started (a libpq URI).
    static var adminURL: String {
        get throws {
            try environmentURL("PULSE_TEST_DATABASE_URL", startedBy: "a private PostgreSQL (or export it pointing at a superuser URI)")
        }
    }

    /// A URL `make test` puts in the environment, or an error saying what starts it.
    static func environmentURL(_ name: String, startedBy what: String) throws -> String {
        guard let url = ProcessInfo.processInfo.environment[name], !url.isEmpty else {
            throw TestSetupError("\(name) is not set: run the tests with `make test`, which starts \(what)")
        }
        return url
    }

    static func create() async throws -> TestDatabase {
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
    func settings(serviceRole: Bool = true) -> ConnectionSettings {
        var settings = ConnectionSettings(conninfo: url, assumeServiceRole: serviceRole)
        settings.reconnect = ReconnectPolicy(initialDelay: .milliseconds(50), maximumDelay: .seconds(1),
                                             maximumAttempts: 10)
        return settings
    }

    func connect(serviceRole: Bool = true) async throws -> PostgresConnection {
        try await PostgresConnection.connect(settings: settings(serviceRole: serviceRole), logger: Self.logger)
    }

    /// A connection migrated to the full schema, writing as `service_role` like the worker.
    func migratedConnection() async throws -> PostgresConnection {
        let admin = try await connect(serviceRole: false)
        _ = try await Migrator(logger: Self.logger).migrate(on: admin)
        await admin.close()
        return try await connect()
    }

    func drop() async {
        guard let admin = try? Self.adminURL,
              let connection = try? await PostgresConnection.connect(
                settings: ConnectionSettings(conninfo: admin, assumeServiceRole: false), logger: Self.logger)
        else { return }
        _ = try? await connection.runOutsideTransaction("DROP DATABASE IF EXISTS \(name) WITH (FORCE)", label: "drop test database")
        await connection.close()
    }

    static func replacingDatabase(in uri: String, with name: String) -> String {
        let query = uri.firstIndex(of: "?").map { String(uri[$0...]) } ?? ""
        let base = query.isEmpty ? uri : String(uri[..<uri.firstIndex(of: "?")!])
        guard let schemeEnd = base.range(of: "://"),
              let slash = base[schemeEnd.upperBound...].firstIndex(of: "/") else { return base + "/" + name + query }
        return String(base[..<slash]) + "/" + name + query
    }

    /// Runs `body` with a fresh database and drops it afterwards, whatever happens.
    static func with<T: Sendable>(_ body: (TestDatabase) async throws -> T) async throws -> T {
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

struct TestSetupError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Reads a fixture next to this test target.
func fixture(_ name: String) throws -> String {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures").appendingPathComponent(name)
    return try String(contentsOf: url, encoding: .utf8)
}
