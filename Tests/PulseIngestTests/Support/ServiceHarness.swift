import Foundation
import LoopbackHTTPServer
import Postgres
import Synchronization
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A login role of its own, as a Supabase project's worker role is: not a superuser, a member of
/// `service_role`. Roles belong to the cluster, so each test makes one with a unique name and
/// drops it afterwards.
struct WorkerRole {
    let name: String
    let password: String

    static func create(admin: PostgresConnection) async throws -> WorkerRole {
        let name = "worker_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
        let role = WorkerRole(name: String(name), password: UUID().uuidString.replacingOccurrences(of: "-", with: ""))
        // Identifiers and this password are the harness's own (hex digits), never input.
        try await admin.runOutsideTransaction("CREATE ROLE \(role.name) LOGIN PASSWORD '\(role.password)' IN ROLE service_role",
                                              label: "create worker role")
        return role
    }

    /// `url` (the test database's superuser URL, direct or through the pooler) logging in as this role.
    func url(_ url: String) -> String {
        guard let scheme = url.range(of: "://"), let at = url[scheme.upperBound...].firstIndex(of: "@") else { return url }
        return String(url[..<scheme.upperBound]) + "\(name):\(password)" + String(url[at...])
    }

    func setPassword(_ password: String, admin: PostgresConnection) async throws {
        try await admin.runOutsideTransaction("ALTER ROLE \(name) PASSWORD '\(password)'", label: "worker password")
    }

    /// Ends every session this role has, as a failover or an operator would.
    func terminateSessions(admin: PostgresConnection) async throws {
        try await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1",
                              [name], label: "terminate worker sessions")
    }

    func drop(admin: PostgresConnection) async {
        _ = try? await terminateSessions(admin: admin)
        _ = try? await admin.runOutsideTransaction("DROP ROLE IF EXISTS \(name)", label: "drop worker role")
    }
}

/// Feeds whose items move on: feed N lists items `window` of the current generation, so that an
/// item a source failed to store can leave its feed before the source is fetched again.
final class RotatingFeeds: Sendable {
    static let itemsPerFeed = 6
    private final class Generation: Sendable {
        let value = Mutex(0)
    }
    private let generation = Generation()
    let server: LoopbackHTTPServer
    let now = Date()

    init() throws {
        let generation = self.generation
        let now = self.now
        server = try LoopbackHTTPServer(routes: ["/rotating/": { request, connection, _ in
            let name = request.path.split(separator: "/").last.map(String.init) ?? ""
            guard let feed = Int(name.replacingOccurrences(of: ".xml", with: "")) else {
                connection.respond(404, "Not Found")
                return
            }
            let items = Self.window(generation.value.withLock { $0 }).map { item in
                """
                <item><title>Rotating \(feed) story \(item)</title><link>\(Self.link(feed: feed, item: item))</link>
                <pubDate>\(FixtureFeeds.rfc822(now.addingTimeInterval(-Double(item) * 60)))</pubDate></item>
                """
            }.joined()
            connection.respond(200, headers: [("Content-Type", "application/rss+xml; charset=utf-8")],
                               body: Array("""
                                   <?xml version="1.0" encoding="UTF-8"?>
                                   <rss version="2.0"><channel><title>Rotating \(feed)</title>
                                   <link>https://rot\(feed).example.com/</link>\(items)</channel></rss>
                                   """.utf8))
        }])
    }

    static func window(_ generation: Int) -> ClosedRange<Int> { (generation * 3 + 1)...(generation * 3 + itemsPerFeed) }
    static func link(feed: Int, item: Int) -> String { "https://rot\(feed).example.com/story/\(item)" }

    /// Half of each feed's items leave it, three new ones come.
    func advance() { generation.value.withLock { $0 += 1 } }

    /// What the feeds list now.
    func currentLinks(feeds: ClosedRange<Int>) -> [String] {
        let window = Self.window(generation.value.withLock { $0 })
        return feeds.flatMap { feed in window.map { Self.link(feed: feed, item: $0) } }
    }

    func config(feeds: ClosedRange<Int>, databaseRetrySeconds: Int = 2) -> String {
        var text = """
            version: 1
            schedule: { min_interval_minutes: 60, max_interval_hours: 24, database_retry_seconds: \(databaseRetrySeconds) }
            enrichment: { enabled: false }
            sources:

            """
        for feed in feeds {
            text += """
                  - slug: rot-\(feed)
                    name: Rotating \(feed)
                    feed_url: \(server.base)/rotating/\(feed).xml
                    category: world
                    language: en

                """
        }
        return text
    }

    /// True when every link the feeds list now is stored exactly once, and nothing twice.
    static func storedExactlyOnce(_ links: [String], admin: PostgresConnection) async throws -> Bool {
        let row = try await admin.query("""
            SELECT (SELECT count(*) FROM public.articles WHERE url = ANY ($1::text[])) AS listed,
                   (SELECT count(*) - count(DISTINCT url) FROM public.articles) AS repeated
            """, [PostgresArray.text(links)], label: "stored once").rows.first
        return row?.int("listed") == links.count && row?.int("repeated") == 0
    }
}

/// The binary as a service: JSON log to a file, metrics on a port it chooses itself.
final class ServiceProcess: @unchecked Sendable {
    // @unchecked: `process` is only started in init and signalled or waited on afterwards.
    let process = Process()
    let logURL: URL

    init(config: String, databaseURL: String, environment extra: [String: String] = [:]) throws {
        logURL = FileManager.default.temporaryDirectory.appendingPathComponent("svc-\(UUID().uuidString.prefix(8)).log")
        _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
        process.executableURL = URL(fileURLWithPath: try builtBinary())
        process.arguments = ["--config", config, "--allow-networks", "127.0.0.0/8", "--log-format", "json",
                             "--metrics-address", "127.0.0.1:0"]
        var environment = ProcessInfo.processInfo.environment
        environment["DATABASE_URL"] = databaseURL
        environment.removeValue(forKey: "NOTIFY_SOCKET")
        environment.merge(extra) { $1 }
        process.environment = environment
        process.standardError = try FileHandle(forWritingTo: logURL)
        process.standardOutput = FileHandle.nullDevice
        try process.run()
    }

    var log: String { (try? String(contentsOf: logURL, encoding: .utf8)) ?? "" }

    /// The last 6 KB of the log, for failure messages.
    var logTail: String { String(log.suffix(6000)) }

    /// The metrics port the service bound, once it says so in its log.
    func metricsPort() async throws -> UInt16 {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            if let line = log.split(separator: "\n").first(where: { $0.contains("metrics endpoint listening") }),
               let range = line.range(of: #"127\.0\.0\.1:[0-9]+"#, options: .regularExpression),
               let port = UInt16(line[range].split(separator: ":").last ?? "") {
                return port
            }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw TestSetupError("the service did not report its metrics port:\n\(logTail)")
    }

    /// `/readyz`'s status code and body.
    func readiness(port: UInt16) async throws -> (status: Int, body: String) {
        let reply = try await offThePool { try loopbackGet(port: port, path: "/readyz") }
        return (reply.status, reply.text)
    }

    /// SIGTERM, then the exit status (nil when it did not exit within 30 s; it is killed then).
    func stop() async throws -> Int32? {
        kill(process.processIdentifier, SIGTERM)
        let deadline = ContinuousClock.now + .seconds(30)
        while process.isRunning && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            return nil
        }
        return process.terminationStatus
    }

    /// Log lines at error level.
    var errorLines: [Substring] { log.split(separator: "\n").filter { $0.contains("\"level\":\"error\"") } }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(at: logURL)
    }
}

/// One blocking GET to 127.0.0.1 (run it off the cooperative pool) with `LoopbackClient`. A
/// connect that fails is tried again a few times: under a loaded test run a signal (a child service
/// exiting) or a momentarily full accept queue made a poll fail once in a while.
func loopbackGet(port: UInt16, path: String) throws -> LoopbackClient.Reply {
    var attempt = 0
    while true {
        do {
            return try LoopbackClient.request(port: Int(port), method: "GET", target: path)
        } catch LoopbackClient.ClientError.connect where attempt < 4 {
            attempt += 1
            usleep(UInt32(100_000 * attempt))
        }
    }
}
