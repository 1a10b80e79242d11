import Foundation
import Postgres
import TestSupport
import Testing

/// The service against a PostgreSQL that goes away: started while the database is down (it keeps
/// retrying), then the server stopped and started again under the running daemon (it backs off,
/// reconnects and carries on). Uses a cluster of its own, so stopping it disturbs no other test.
@Suite(.tags(.integration), .needsDatabase)
struct DatabaseOutageTests {
    @Test func serviceRidesOutADatabaseRestart() async throws {
        let server = try FixtureFeeds.feedServer(now: Date())
        defer { server.stop() }
        let cluster = try PrivateCluster.make()
        defer { cluster.destroy() }
        try await cluster.run("start")
        let url = try cluster.url
        try await cluster.run("stop")

        let (folder, configPath) = try ServiceProcessTests.writeConfig(
            ServiceProcessTests.config(server: server, feeds: 1...3, pathOffset: 500))
        defer { try? FileManager.default.removeItem(at: folder) }

        // Started while PostgreSQL is down: it must wait and retry, not exit.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try builtBinary())
        process.arguments = ["--config", configPath, "--allow-networks", "127.0.0.0/8", "--log-format", "json"]
        var environment = ProcessInfo.processInfo.environment
        environment["DATABASE_URL"] = url
        environment["PULSE_AUTO_MIGRATE"] = "1"
        environment.removeValue(forKey: "NOTIFY_SOCKET")
        process.environment = environment
        let logFile = folder.appendingPathComponent("service.log")
        _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        let log = try FileHandle(forWritingTo: logFile)
        process.standardError = log
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        try await Task.sleep(for: .seconds(3))
        #expect(process.isRunning, "the service exited while the database was down")

        try await cluster.run("start")
        var settings = ConnectionSettings(conninfo: url, assumeServiceRole: false)
        settings.reconnect = ReconnectPolicy(initialDelay: .milliseconds(100), maximumDelay: .seconds(1), maximumAttempts: 30)
        var admin = try await PostgresConnection.connect(settings: settings, logger: TestDatabase.logger)
        #expect(try await ServiceProcessTests.waitUntil(timeout: .seconds(60)) {
            (try? await Self.fetchedSince(admin, nil)) == 3
        }, "the service did not ingest after the database came up")
        let articlesBefore = try await Self.articleCount(admin)
        #expect(articlesBefore > 0)
        await admin.close()

        // Stopped under the running daemon, then back: it backs off, reconnects and goes on.
        try await cluster.run("stop")
        kill(process.processIdentifier, SIGHUP)   // wakes the loop now, so it meets the outage
        try await Task.sleep(for: .seconds(4))
        #expect(process.isRunning, "the service exited during the outage")
        try await cluster.run("start")
        admin = try await PostgresConnection.connect(settings: settings, logger: TestDatabase.logger)
        let marker = Date()
        try await admin.query("UPDATE public.sources SET next_due_at = now()", label: "make due")
        #expect(try await ServiceProcessTests.waitUntil(timeout: .seconds(60)) {
            try await Self.fetchedSince(admin, marker) == 3
        }, "the service did not fetch again after the database came back")
        #expect(try await Self.articleCount(admin) == articlesBefore, "a refetch must not duplicate rows")

        kill(process.processIdentifier, SIGTERM)
        let stopAt = ContinuousClock.now
        while process.isRunning && ContinuousClock.now - stopAt < .seconds(25) {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(!process.isRunning)
        // The log goes with the temporary folder: its end is kept in the failure (a crash prints its
        // backtrace there).
        #expect(process.terminationStatus == 0,
                "service log, last 8 KB:\n\(String(decoding: (try? Data(contentsOf: logFile).suffix(8192)) ?? Data(), as: UTF8.self))")
        let open = try await admin.query("SELECT count(*) FROM public.fetch_logs WHERE completed_at IS NULL",
                                         label: "open logs").rows.first?.int("count")
        #expect(open == 0)
        await admin.close()
        try log.close()
        let text = try String(contentsOf: logFile, encoding: .utf8)
        #expect(text.contains("\"level\":\"error\""), "the outage must be logged as an error")
        #expect(!text.contains(url), "the connection string must never be logged")
        try await cluster.run("stop")   // here, off the pool; the deferred destroy then finds it stopped
    }

    static func fetchedSince(_ db: PostgresConnection, _ marker: Date?) async throws -> Int {
        try await db.query("SELECT count(*) FROM public.sources WHERE last_fetched_at > $1",
                           [marker ?? Date(timeIntervalSince1970: 0)], label: "fetched since").rows.first?.int("count") ?? 0
    }

    static func articleCount(_ db: PostgresConnection) async throws -> Int {
        try await db.query("SELECT count(*) FROM public.articles", label: "articles").rows.first?.int("count") ?? 0
    }
}
