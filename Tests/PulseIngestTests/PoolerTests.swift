import ArticleStore
import Foundation
import Migrations
import Postgres
import PulseModel
import TestSupport
import Testing

/// Through a transaction-mode pooler (pgbouncer from Debian, started by `make test` as Supabase's
/// pooler on port 6543 is reached): each transaction may run on another server session, and a
/// server session goes to another client next. Nothing may depend on session state, and nothing
/// may leave any behind.
@Suite(.tags(.integration), .needsDatabase, .needsPooler)
struct PoolerTests {
    /// The superuser URL through the pooler `make test` started (`.ci/local-pgbouncer`).
    static var poolerURL: String {
        get throws {
            try TestDatabase.environmentURL("PULSE_TEST_POOLER_URL",
                                             startedBy: "a transaction-mode pgbouncer in front of the private PostgreSQL (.ci/local-pgbouncer)")
        }
    }

    /// What a server session shows a client that sets nothing: its role, timeouts, time zone,
    /// prepared statements and advisory locks, read without our per-transaction settings.
    static let sessionStateSQL = """
        SELECT current_user AS role, current_setting('statement_timeout') AS statement_timeout,
               current_setting('lock_timeout') AS lock_timeout, current_setting('TimeZone') AS zone,
               (SELECT count(*) FROM pg_catalog.pg_prepared_statements) AS prepared,
               (SELECT count(*) FROM pg_catalog.pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()) AS advisory
        """

    /// Opens `count` plain clients at once, each inside a transaction so that each holds a server
    /// session of its own (the pool has 4 per database and role), and reads every session's state.
    static func serverSessionStates(url: String, count: Int = 4) async throws -> [[String: String]] {
        var clients: [PostgresConnection] = []
        var states: [[String: String]] = []
        for _ in 0..<count {
            let client = try await PostgresConnection.connect(
                settings: ConnectionSettings(conninfo: url, assumeServiceRole: false), logger: TestDatabase.logger)
            try await client.runOutsideTransaction("BEGIN", label: "hold a server session")
            clients.append(client)
        }
        for client in clients {
            let row = try #require(try await client.runOutsideTransaction(sessionStateSQL, label: "session state").rows.first)
            var state: [String: String] = [:]
            for name in ["role", "statement_timeout", "lock_timeout", "zone", "prepared", "advisory"] { state[name] = row[name] }
            states.append(state)
            try await client.runOutsideTransaction("ROLLBACK", label: "release")
            await client.close()
        }
        return states
    }

    /// The store's whole unit of work as a non-superuser member of service_role, through the
    /// pooler: inserts, fetch state, fetch_logs (row-level security: the role alone may not write
    /// it), claims and leases; afterwards the pooler's server sessions carry nothing of it.
    @Test func noSessionStateOutlivesATransaction() async throws {
        let pooler = try Self.poolerURL
        try await TestDatabase.with { database in
            let (seeded, sources) = try await Seed.store(database, sources: [Seed.source("s1"), Seed.source("s2")])
            let admin = try await database.connect(serviceRole: false)
            let role = try await WorkerRole.create(admin: admin)
            do {
                let url = role.url(TestDatabase.replacingDatabase(in: pooler, with: database.name))
                var settings = ConnectionSettings(conninfo: url)
                settings.statementTimeoutMilliseconds = 4321
                settings.lockTimeoutMilliseconds = 1234
                let worker = try await PostgresConnection.connect(settings: settings, logger: TestDatabase.logger)
                #expect(await worker.currentRole == "service_role")
                let inside = try #require(try await worker.query(Self.sessionStateSQL, label: "inside").rows.first)
                #expect(inside["role"] == "service_role" && inside["statement_timeout"] == "4321ms"
                        && inside["lock_timeout"] == "1234ms" && inside["zone"] == "UTC", "\(inside.values)")

                let store = ArticleStore(connection: worker, extraInsertConnections: 1)
                for round in 0..<3 {
                    let log = try await store.openFetchLog()
                    let claimed = try await store.claimDueSources(workerID: "pooled-\(round)", limit: 2, lease: .seconds(60))
                    for source in claimed {
                        let candidates = (1...30).map {
                            ArticleCandidate(title: "\(source.slug) \(round) \($0)",
                                             link: "https://e.example/\(source.slug)/\(round)/\($0)")
                        }
                        #expect(try await store.insertArticles(candidates, source: source).inserted == 30)
                        _ = try await store.itemsPublishedLastWeek(sourceID: source.id)
                        try await store.recordFetchSuccess(sourceID: source.id, etag: "e\(round)", lastModified: nil,
                                                           notModified: false)
                    }
                    try await store.closeFetchLog(id: log, summary: FetchLogSummary())
                    try await store.releaseLeases(workerID: "pooled-\(round)")
                    try await admin.query("UPDATE public.sources SET next_due_at = now() - interval '1 minute'", label: "due")
                }
                #expect(sources.count == 2)
                await store.closeInsertLanes()
                await worker.close()
                let stored = try await admin.query("SELECT count(*) FROM public.articles", label: "count").rows.first?.int("count")
                #expect(stored == 180)

                let zone = try await admin.runOutsideTransaction("SHOW TimeZone", label: "server zone").rows.first?[0]
                for state in try await Self.serverSessionStates(url: url) {
                    #expect(state == ["role": role.name, "statement_timeout": "0", "lock_timeout": "0", "zone": zone ?? "",
                                      "prepared": "0", "advisory": "0"], "a server session kept state: \(state)")
                }
            } catch {
                await role.drop(admin: admin)
                throw error
            }
            await role.drop(admin: admin)
            await admin.close()
            await seeded.connection.close()
        }
    }

    /// The fleet gauges' advisory lock and `--status`'s cursor live in one transaction each:
    /// through the pooler one client computes the figures and another reads them, every status
    /// row comes through (1,200: three FETCHes), and no server session keeps a lock.
    @Test func fleetGaugesAndStatusCursorThroughThePooler() async throws {
        let pooler = try Self.poolerURL
        try await TestDatabase.with { database in
            let (seeded, _) = try await Seed.store(database, sources: (1...1200).map { Seed.source(String(format: "p-%04d", $0)) })
            let url = TestDatabase.replacingDatabase(in: pooler, with: database.name)
            func store() async throws -> ArticleStore {
                ArticleStore(connection: try await PostgresConnection.connect(settings: ConnectionSettings(conninfo: url),
                                                                              logger: TestDatabase.logger))
            }
            let first = try await store()
            let second = try await store()
            let computed = try #require(try await first.fleetGauges(workerID: "pooled-1", interval: .seconds(15)))
            #expect(computed.computedHere && computed.gauges.sources == 1200 && computed.gauges.due == 1200)
            let read = try #require(try await second.fleetGauges(workerID: "pooled-2", interval: .seconds(15)))
            #expect(!read.computedHere && read.computedBy == "pooled-1" && read.gauges == computed.gauges)
            let statuses = try await second.sourceStatuses()
            #expect(statuses.count == 1200 && Set(statuses.map(\.slug)).count == 1200)
            #expect(try await first.sourceStatuses(limit: 3).map(\.slug) == Array(statuses.prefix(3).map(\.slug)))
            await first.connection.close()
            await second.connection.close()
            await seeded.connection.close()
            for state in try await Self.serverSessionStates(url: url) {
                #expect(state["advisory"] == "0" && state["prepared"] == "0", "\(state)")
            }
        }
    }

    /// Two migrations at once through the pooler: one applies, the other waits and finds nothing
    /// to do; no lock is left on any server session.
    @Test func concurrentMigrationsThroughThePooler() async throws {
        let pooler = try Self.poolerURL
        try await TestDatabase.with { database in
            let url = TestDatabase.replacingDatabase(in: pooler, with: database.name)
            func connect() async throws -> PostgresConnection {
                var settings = ConnectionSettings(conninfo: url, assumeServiceRole: false)
                settings.statementTimeoutMilliseconds = 0
                return try await PostgresConnection.connect(settings: settings, logger: TestDatabase.logger)
            }
            let first = try await connect()
            let second = try await connect()
            async let a = Migrator(logger: TestDatabase.logger).migrate(on: first)
            async let b = Migrator(logger: TestDatabase.logger).migrate(on: second)
            let reports = try await [a, b]
            #expect(reports.map(\.applied.count).sorted() == [0, Migration.all.count])
            await first.close()
            await second.close()
            for state in try await Self.serverSessionStates(url: url) {
                #expect(state["advisory"] == "0" && state["prepared"] == "0", "\(state)")
            }
        }
    }

    /// The acceptance run: two services (each migrating at start), `--migrate` and then `--once`
    /// (as a non-superuser worker role) through the pooler at once: no error, every item stored
    /// exactly once, every process exits 0, and no server session keeps anything of theirs.
    @Test func servicesOnceAndMigrateShareThePooler() async throws {
        let pooler = try Self.poolerURL
        let feeds = try RotatingFeeds()
        defer { feeds.server.stop() }
        let range = 1...12
        try await TestDatabase.with { database in
            let url = TestDatabase.replacingDatabase(in: pooler, with: database.name)
            let (folder, configPath) = try ServiceProcessTests.writeConfig(feeds.config(feeds: range))
            defer { try? FileManager.default.removeItem(at: folder) }
            let services = try (0..<2).map { _ in
                try ServiceProcess(config: configPath, databaseURL: url, environment: ["PULSE_AUTO_MIGRATE": "1"])
            }
            let migrate = try await runCommand(["--migrate", "--config", configPath, "--allow-networks", "127.0.0.0/8"],
                                               databaseURL: url)
            #expect(migrate.status == 0, "--migrate: \(migrate.output)")

            let admin = try await database.connect(serviceRole: false)
            let role = try await WorkerRole.create(admin: admin)
            do {
                try await admin.query("UPDATE public.sources SET next_due_at = now()", label: "due")
                let once = try await runCommand(["--once", "--config", configPath, "--allow-networks", "127.0.0.0/8"],
                                                databaseURL: role.url(url))
                #expect(once.status == 0, "--once: \(once.output)")
                #expect(try await ServiceProcessTests.waitUntil(timeout: .seconds(60)) {
                    try await RotatingFeeds.storedExactlyOnce(feeds.currentLinks(feeds: range), admin: admin)
                }, "\(services[0].logTail)")
                for service in services {
                    #expect(try await service.stop() == 0, "\(service.logTail)")
                    #expect(service.errorLines.isEmpty, "\(service.errorLines.prefix(5))")
                }
                for state in try await Self.serverSessionStates(url: url) {
                    #expect(state["role"] == "pulse" && state["statement_timeout"] == "0" && state["prepared"] == "0"
                            && state["advisory"] == "0", "a server session kept state: \(state)")
                }
                let open = try await admin.query("SELECT count(*) FROM public.fetch_logs WHERE completed_at IS NULL",
                                                 label: "open logs").rows.first?.int("count")
                #expect(open == 0)
            } catch {
                await role.drop(admin: admin)
                throw error
            }
            await role.drop(admin: admin)
            await admin.close()
        }
    }

    /// Runs the binary to its end (off the cooperative pool); its exit status and output.
    func runCommand(_ arguments: [String], databaseURL: String) async throws -> (status: Int32, output: String) {
        let binary = try builtBinary()
        return try await offThePool {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = arguments
            var environment = ProcessInfo.processInfo.environment
            environment["DATABASE_URL"] = databaseURL
            process.environment = environment
            let output = Pipe()
            process.standardOutput = output
            process.standardError = output
            try process.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationStatus, String(decoding: data, as: UTF8.self))
        }
    }
}
