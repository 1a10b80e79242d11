import Foundation
import Postgres
import Testing

/// The service against a PostgreSQL that goes away: started while the database is down (it keeps
/// retrying), then the server stopped and started again under the running daemon (it backs off,
/// reconnects and carries on). Uses a cluster of its own, so stopping it disturbs no other test.
@Suite(.tags(.integration))
struct DatabaseOutageTests {
    /// A private cluster through the same script `make test` uses, in a temporary folder.
    struct Cluster {
        let root: String
        let port: Int

        static func make() throws -> Cluster {
            let root = "/tmp/pulse-outage-\(UUID().uuidString.prefix(8))"
            return Cluster(root: root, port: Int.random(in: portsOutsideTheEphemeralRange()))
        }

        /// The cluster is stopped and started again on the same port while the daemon keeps
        /// connecting to it. Inside the kernel's ephemeral range (`ip_local_port_range`, 32768-60999
        /// here) an outgoing connection of this or another test could be given that port as its
        /// local end (a connect to a closed loopback port can even connect to itself), and the
        /// restart then fails with "Address already in use": once in 19 `make test` runs with
        /// 55000-56999. Below the range no client socket takes it.
        static func portsOutsideTheEphemeralRange() -> Range<Int> {
            let bounds = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8))?
                .split(whereSeparator: \.isWhitespace).compactMap { Int($0) } ?? []
            let low = bounds.first ?? 32_768, high = bounds.count > 1 ? bounds[1] : 60_999
            if low >= 22_000 { return 20_000..<min(low, 30_000) }
            return (high + 1)..<max(high + 2, 65_000)
        }

        /// posix_spawn and waitpid, not Foundation's Process: its exit monitoring missed this
        /// short-lived child under the test runner and `waitUntilExit` never returned.
        func run(_ command: String) async throws {
            try await offThePool { try runBlocking(command) }
        }

        private func runBlocking(_ command: String) throws {
            let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent(".ci/local-postgres").path
            var environment = ProcessInfo.processInfo.environment
            environment["PULSE_PG_ROOT"] = root
            environment["PULSE_PG_PORT"] = String(port)
            // posix_spawn_file_actions_addclosefrom_np is not visible from Swift: bash closes
            // every other descriptor in the child before running the script.
            let closeOthers = #"for fd in /proc/self/fd/*; do n=${fd##*/}; [ "$n" -gt 2 ] && eval "exec $n>&-" 2>/dev/null; done; exec /bin/bash "$0" "$1""#
            let argv = ["/bin/bash", "-c", closeOthers, script, command]
            let envp = environment.map { "\($0.key)=\($0.value)" }
            var cArgv = argv.map { strdup($0) } + [nil]
            var cEnvp = envp.map { strdup($0) } + [nil]
            defer { (cArgv + cEnvp).forEach { free($0) } }
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            // Only its own stdio: the cluster this starts outlives the call, and an inherited
            // descriptor (another test's pipe to a child) would keep that pipe open for good
            // (a parallel test's promtool then never saw the end of its input).
            let logPath = "/tmp/pulse-outage-\(port).log"
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 1, logPath, O_WRONLY | O_CREAT | O_APPEND, 0o600)
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
            var pid: pid_t = 0
            guard posix_spawn(&pid, argv[0], &actions, nil, &cArgv, &cEnvp) == 0 else {
                throw TestSetupError("could not start local-postgres \(command)")
            }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
            guard status == 0 else {
                let output = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
                throw TestSetupError("local-postgres \(command) exited with status \(status) (root \(root)): \(output.suffix(500))")
            }
        }

        var url: String {
            get throws {
                let password = try String(contentsOfFile: root + "/password", encoding: .utf8)
                    .trimmingCharacters(in: .whitespacesAndNewlines)
                return "postgresql://pulse:\(password)@127.0.0.1:\(port)/pulse"
            }
        }

        func destroy() {
            try? runBlocking("stop")
            try? FileManager.default.removeItem(atPath: root)
            try? FileManager.default.removeItem(atPath: "/tmp/pulse-outage-\(port).log")
        }
    }

    @Test func serviceRidesOutADatabaseRestart() async throws {
        let server = try OncePassTests.feedServer(now: Date())
        defer { server.stop() }
        let cluster = try Cluster.make()
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
