import Foundation
import LoopbackHTTPServer
import TestSupport

/// A fresh database migrated from a feeds.yaml of `svc-N` sources served by `server`, for tests
/// that drive the real binary: `body` gets the database, the config path and the environment.
func withMigratedConfig(server: LoopbackHTTPServer, feeds: ClosedRange<Int>,
                        _ body: (TestDatabase, String, [String: String]) async throws -> Void) async throws {
    try await TestDatabase.with { database in
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cli-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = folder.appendingPathComponent("feeds.yaml").path
        try ServiceProcessTests.config(server: server, feeds: feeds, pathOffset: 0)
            .write(toFile: config, atomically: true, encoding: .utf8)
        // The feeds are on loopback: every mode that reads the file needs their network allowed.
        let env = ["DATABASE_URL": database.url, "PULSE_ALLOW_NETWORKS": "127.0.0.0/8"]
        let migrated = try await CommandLineTests.run(["--migrate", "--config", config], environment: env)
        guard migrated.status == 0 else { throw TestSetupError("--migrate failed: \(migrated.stderr)") }
        try await body(database, config, env)
    }
}
