import ArticleStore
import Foundation
import LoopbackHTTPServer
import Postgres
import Synchronization
import TestSupport
import Testing

/// The real binary as systemd runs it: notify protocol, SIGHUP with a good and a bad config,
/// SIGTERM drain within the deadline.
@Suite(.tags(.integration), .needsDatabase)
struct ServiceProcessTests {
    static func config(server: LoopbackHTTPServer, feeds: ClosedRange<Int>, broken: Bool = false,
                       pathOffset: Int = 300) -> String {
        var text = """
            version: 1
            schedule: { min_interval_minutes: 60, max_interval_hours: 24 }
            sources:

            """
        for number in feeds {
            text += """
                  - slug: svc-\(number)
                    name: Service feed \(number)
                    feed_url: \(server.base)/feeds/\(number + pathOffset).xml
                    category: world
                    language: en

                """
        }
        if broken { text += "    bogus_key: 1\n" }
        return text
    }

    @Test func notifyReloadAndDrain() async throws {
        let server = try FixtureFeeds.feedServer(now: Date())
        defer { server.stop() }
        try await TestDatabase.with { database in
            let admin = try await database.migratedConnection()
            let (folder, configPath) = try Self.writeConfig(Self.config(server: server, feeds: 1...3))
            defer { try? FileManager.default.removeItem(at: folder) }

            let notify = try NotifySocket()
            let (process, stderr) = try Self.startService(config: configPath, database: database, notify: notify,
                                                          environment: ["WATCHDOG_USEC": "2000000"])
            defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

            let startup = await notify.waitFor("READY=1", timeout: .seconds(120))
            #expect(startup.contains { $0.contains("READY=1") }, "no READY=1: \(startup)")
            #expect(try await Self.waitUntil { try await Self.fetchedCount(admin) == 3 })
            let pings = await notify.waitFor("WATCHDOG=1", timeout: .seconds(30))
            #expect(pings.contains { $0.contains("WATCHDOG=1") }, "no watchdog ping: \(pings)")

            // A good config: a fourth source appears without a restart.
            try Self.config(server: server, feeds: 1...4).write(toFile: configPath, atomically: true, encoding: .utf8)
            kill(process.processIdentifier, SIGHUP)
            let reload = await notify.waitFor("READY=1", timeout: .seconds(60))
            #expect(reload.contains { $0.contains("RELOADING=1") })
            #expect(try await Self.waitUntil { try await Self.fetchedCount(admin) == 4 })

            // A bad config: still running, sources unchanged.
            try Self.config(server: server, feeds: 1...5, broken: true).write(toFile: configPath, atomically: true, encoding: .utf8)
            kill(process.processIdentifier, SIGHUP)
            _ = await notify.waitFor("READY=1", timeout: .seconds(60))
            #expect(process.isRunning)
            #expect(try await admin.query("SELECT count(*) FROM public.sources", label: "n").rows.first?.int("count") == 4)

            // SIGTERM: drains, releases leases, closes its fetch_logs rows, exits 0 well within 20 s.
            let stopAt = ContinuousClock.now
            kill(process.processIdentifier, SIGTERM)
            let stopping = await notify.waitFor("STOPPING=1", timeout: .seconds(25))
            #expect(stopping.contains { $0.contains("STOPPING=1") })
            while process.isRunning && ContinuousClock.now - stopAt < .seconds(25) {
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(!process.isRunning)
            #expect(process.terminationStatus == 0)
            let log = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(log.contains("configuration reload failed"))
            #expect(log.contains("bogus_key"))
            #expect(!log.contains(database.url), "the connection string must never be logged")
            let leftovers = try await admin.query("""
                SELECT (SELECT count(*) FROM public.sources WHERE claimed_by IS NOT NULL) AS leased,
                       (SELECT count(*) FROM public.fetch_logs WHERE completed_at IS NULL) AS open_logs
                """, label: "leftovers").rows.first
            #expect(leftovers?.int("leased") == 0 && leftovers?.int("open_logs") == 0)
            await admin.close()
        }
    }

    /// A metrics address that cannot be bound is a usage error naming `--metrics-address` (64),
    /// even while the database is still being reached; nothing else keeps the process up.
    @Test(.timeLimit(.minutes(1)))
    func anUnusableMetricsAddressIsAUsageError() async throws {
        let server = try FixtureFeeds.feedServer(now: Date())
        defer { server.stop() }
        let occupied = server
        let (folder, configPath) = try Self.writeConfig(Self.config(server: server, feeds: 1...1))
        defer { try? FileManager.default.removeItem(at: folder) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try builtBinary())
        process.arguments = ["--config", configPath, "--allow-networks", "127.0.0.0/8",
                             "--metrics-address", "127.0.0.1:\(occupied.port)"]
        var environment = ProcessInfo.processInfo.environment
        // Nothing listens there: the service would retry it for ever.
        environment["DATABASE_URL"] = "postgresql://nobody@127.0.0.1:1/none"
        process.environment = environment
        let stderr = Pipe()
        process.standardError = stderr
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let log = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 64, "\(log.suffix(2000))")
        #expect(log.contains("--metrics-address 127.0.0.1:\(occupied.port)"), "\(log.suffix(2000))")
        #expect(log.contains("Address already in use"), "\(log.suffix(2000))")
    }

    /// A second SIGTERM during the drain ends the service at once with 130 (not a crash);
    /// STOPPING=1 goes out when the drain begins, not when it ends. A stalled fetch no longer holds
    /// a drain (it is abandoned at the stop), so the test holds the sources' rows instead: giving
    /// back the leases waits on them.
    @Test func aSecondSignalExitsAtOnce() async throws {
        let gate = StallGate()
        let stalled = try LoopbackHTTPServer(routes: ["/feeds/301.xml": { _, connection, _ in
            gate.hold()
            connection.respond(503, "Service Unavailable")
        }])
        defer {
            for _ in 0..<8 { gate.semaphore.signal() }
            stalled.stop()
        }
        try await TestDatabase.with { database in
            let (folder, configPath) = try Self.writeConfig(Self.config(server: stalled, feeds: 1...1))
            defer { try? FileManager.default.removeItem(at: folder) }
            let notify = try NotifySocket()
            let (process, stderr) = try Self.startService(config: configPath, database: database, notify: notify,
                                                          environment: ["PULSE_AUTO_MIGRATE": "1"])
            defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

            // Start-up migrates a fresh database first: on a loaded machine that alone took over 30 s.
            #expect(try await Self.waitUntil(timeout: .seconds(120)) { gate.inside.load(ordering: .relaxed) >= 1 },
                    "the feed was never requested")
            let locker = try await database.connect(serviceRole: false)
            try await locker.runOutsideTransaction("BEGIN", label: "lock")
            try await locker.runOutsideTransaction("SELECT 1 FROM public.sources FOR UPDATE", label: "lock")
            kill(process.processIdentifier, SIGTERM)
            let stopping = await notify.waitFor("STOPPING=1", timeout: .seconds(25))
            #expect(stopping.contains { $0.contains("STOPPING=1") })
            kill(process.processIdentifier, SIGTERM)
            let stopAt = ContinuousClock.now
            while process.isRunning && ContinuousClock.now - stopAt < .seconds(25) {
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(!process.isRunning)
            let log = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(process.terminationReason == .exit && process.terminationStatus == 130, "\(log.suffix(2000))")
            #expect(log.contains("second stop signal: exiting now"), "\(log.suffix(2000))")
            try await locker.runOutsideTransaction("ROLLBACK", label: "unlock")
            await locker.close()
        }
    }

    /// `text` as feeds.yaml in a new temporary folder, which the caller removes.
    static func writeConfig(_ text: String) throws -> (folder: URL, path: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("svc-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("feeds.yaml").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return (folder, path)
    }

    /// The service as systemd starts it, its stderr in a pipe.
    private static func startService(config: String, database: TestDatabase, notify: NotifySocket,
                                     environment extra: [String: String]) throws -> (Process, Pipe) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try builtBinary())
        process.arguments = ["--config", config, "--allow-networks", "127.0.0.0/8", "--log-format", "json"]
        var environment = ProcessInfo.processInfo.environment
        environment["DATABASE_URL"] = database.url
        environment["NOTIFY_SOCKET"] = notify.path
        environment.merge(extra) { $1 }
        process.environment = environment
        let stderr = Pipe()
        process.standardError = stderr
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        return (process, stderr)
    }

    static func fetchedCount(_ db: PostgresConnection) async throws -> Int {
        try await db.query("SELECT count(*) FROM public.sources WHERE last_fetched_at IS NOT NULL",
                           label: "fetched").rows.first?.int("count") ?? 0
    }

    static func waitUntil(timeout: Duration = .seconds(60), _ condition: () async throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(100))
        }
        return false
    }
}
