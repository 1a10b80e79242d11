import Foundation
@testable import HTTPFetcher
import LoopbackHTTPServer
import Observability
import PulseConfig
@testable import pulse_ingest
import Synchronization
import TestSupport
import Testing

/// The dump modes fetch with the service's settings from the environment (PULSE_RESOLVE,
/// PULSE_USER_AGENT, PULSE_CA_FILE, PULSE_CA_PATH, --allow-networks) and an explicit `--config`,
/// through the built binary, in a folder with no feeds.yaml and with no database.
@Suite struct DumpModeFetchTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let binary = root.appendingPathComponent(".build/debug/pulse-ingest").path
    /// Variables of the machine running the tests that would change what is checked here.
    static let cleared = ["DATABASE_URL", "PULSE_USER_AGENT", "PULSE_RESOLVE", "PULSE_CA_FILE", "PULSE_CA_PATH",
                          "PULSE_ALLOW_NETWORKS", "SSL_CERT_FILE", "SSL_CERT_DIR", "CURL_CA_BUNDLE"]

    /// Runs the binary in a fresh folder with no ./feeds.yaml, on a thread of its own so a waiting
    /// test holds no thread of the concurrency pool. `systemCAs` runs it in a private mount
    /// namespace with that folder mounted over /etc/ssl/certs. A dump mode without a `--config` is
    /// given `patient.yaml`, whose only change is long fetch timeouts: bounds, not measures (the
    /// built-in 10 s for connect and handshake was passed once by a TLS fixture on a loaded
    /// two-core machine).
    static func run(_ arguments: [String], environment extra: [String: String] = [:],
                    systemCAs: String? = nil) async throws -> ProcessRun {
        var environment = ProcessInfo.processInfo.environment
        for name in cleared { environment.removeValue(forKey: name) }
        environment.merge(extra) { $1 }
        return try await withCheckedThrowingContinuation { [environment] continuation in
            Thread {
                continuation.resume(with: Result {
                    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dump-fetch-\(UUID().uuidString.prefix(8))")
                    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                    defer { try? FileManager.default.removeItem(at: folder) }
                    var arguments = arguments
                    if arguments.first?.hasPrefix("--dump-") == true && !arguments.contains("--config") {
                        let config = folder.appendingPathComponent("patient.yaml")
                        try Self.patientConfig.write(to: config, atomically: true, encoding: .utf8)
                        arguments += ["--config", config.path]
                    }
                    let (executable, all) = systemCAs.map {
                        ("/usr/bin/unshare", ["--mount", "--", "/bin/sh", "-c", #"mount --bind "$0" /etc/ssl/certs && exec "$@""#,
                                              $0, binary] + arguments)
                    } ?? (binary, arguments)
                    return try ProcessRun(executable, all, environment: environment, in: folder)
                })
            }.start()
        }
    }

    static let patientConfig = """
        version: 1
        fetch:
          connect_timeout_seconds: 120
          total_timeout_seconds: 300
        sources: []

        """

    static let feed = """
        <?xml version="1.0"?><rss version="2.0"><channel><title>Field feed</title><link>https://field.example/</link>
        <item><title>Pinned and named</title><link>https://field.example/a/1</link></item></channel></rss>
        """
    static let page = """
        <!doctype html><html><head><title>Pinned page</title></head><body><article><h1>Pinned page</h1>
        <p>This article page was fetched through a PULSE_RESOLVE pin with the operator's user agent, as the
        service would fetch it, and its body is long enough to be kept by the readability scorer.</p>
        <p>A second paragraph of ordinary text keeps the scorer confident that this is the article.</p>
        </article></body></html>
        """

    /// "Host User-Agent" of each request a server answered.
    final class HostsAndAgents: Sendable {
        private let list = Mutex<[String]>([])
        var lines: [String] { list.withLock { $0 } }

        func record(_ request: LoopbackHTTPServer.Request) {
            list.withLock { $0.append("\(request.headers["host"] ?? "") \(request.headers["user-agent"] ?? "")") }
        }
    }

    /// The feed and the page, each request's host and user agent recorded in `seen`.
    static func recordingServer(_ seen: HostsAndAgents) throws -> LoopbackHTTPServer {
        try LoopbackHTTPServer(routes: [
            "/feed.xml": { request, connection, _ in
                seen.record(request)
                connection.respond(200, headers: [("Content-Type", "application/rss+xml")], body: Array(Self.feed.utf8))
            },
            "/page.html": { request, connection, _ in
                seen.record(request)
                connection.respond(200, headers: [("Content-Type", "text/html")], body: Array(Self.page.utf8))
            },
        ])
    }

    @Test func dumpModesUseTheResolvePinsAndUserAgent() async throws {
        let seen = HostsAndAgents()
        let server = try Self.recordingServer(seen)
        defer { server.stop() }
        let host = "feeds.intranet.example:\(server.port)"
        let environment = ["PULSE_RESOLVE": "\(host):127.0.0.1", "PULSE_USER_AGENT": "pulse-field-test/2.0",
                           // Not read by the dump modes, which need no database.
                           "DATABASE_URL": "not a database URL"]
        let networks = ["--allow-networks", "127.0.0.0/8"]

        let feed = try await Self.run(["--dump-feed", "http://\(host)/feed.xml"] + networks, environment: environment)
        #expect(feed.status == 0, "\(feed.stderr)")
        #expect(feed.stdout.contains("Pinned and named"))
        let article = try await Self.run(["--dump-article", "http://\(host)/page.html"] + networks, environment: environment)
        #expect(article.status == 0, "\(article.stderr)")
        #expect(article.stdout.contains("Pinned page"))
        #expect(seen.lines == ["\(host) pulse-field-test/2.0", "\(host) pulse-field-test/2.0"])

        let badPin = try await Self.run(["--dump-feed", "http://\(host)/feed.xml"] + networks,
                                        environment: ["PULSE_RESOLVE": "feeds.intranet.example"])
        #expect(badPin.status == 64)
        #expect(badPin.stderr.contains("PULSE_RESOLVE 'feeds.intranet.example' is not host:port:address"), "\(badPin.stderr)")
        #expect(server.hits("/feed.xml") == 1)
    }

    /// A `--config` given explicitly lends the dump modes its `fetch:` settings (here the user agent);
    /// a broken one stops the start with 64, naming the file.
    @Test func dumpModesFetchWithAnExplicitConfigsSettings() async throws {
        let seen = HostsAndAgents()
        let server = try Self.recordingServer(seen)
        defer { server.stop() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dump-config-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = folder.appendingPathComponent("feeds.yaml")
        try Self.patientConfig.replacingOccurrences(of: "fetch:\n", with: "fetch:\n  user_agent: from-the-config/1.0\n")
            .write(to: config, atomically: true, encoding: .utf8)
        let networks = ["--allow-networks", "127.0.0.0/8"]

        let feed = try await Self.run(["--dump-feed", "\(server.base)/feed.xml", "--config", config.path] + networks)
        #expect(feed.status == 0, "\(feed.stderr)")
        #expect(feed.stdout.contains("Pinned and named"))
        #expect(seen.lines.map { $0.split(separator: " ").last ?? "" } == ["from-the-config/1.0"], "\(seen.lines)")

        let broken = folder.appendingPathComponent("broken.yaml")
        try "version: 1\nfetch:\n  connect_timeout_seconds: 0\nsources: []\n".write(to: broken, atomically: true, encoding: .utf8)
        let refused = try await Self.run(["--dump-feed", "\(server.base)/feed.xml", "--config", broken.path] + networks)
        #expect(refused.status == 64)
        #expect(refused.stderr.contains(broken.path) && refused.stderr.contains("connect_timeout_seconds"), "\(refused.stderr)")
        #expect(server.hits("/feed.xml") == 1)
    }

    /// Files fetch nothing, so the fetch variables are not even read (nor checked).
    @Test func filesAloneReadNoFetchSettings() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("dump-file-\(UUID().uuidString.prefix(8)).xml")
        try Self.feed.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let run = try await Self.run(["--dump-feed", file.path],
                                     environment: ["PULSE_RESOLVE": "nonsense", "PULSE_CA_FILE": "/nonexistent/ca.pem"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("Pinned and named"))
    }

    @Test func dumpModesTrustThePulseCAVariablesOnly() async throws {
        let servers = try await offThePool { try LoopbackTLSServers() }
        defer { servers.stop() }
        let networks = ["--allow-networks", "127.0.0.0/8"]
        let feed = ["--dump-feed", servers.url("a")] + networks

        let untrusted = try await Self.run(feed)
        #expect(untrusted.status == 65)
        #expect(untrusted.stdout.contains("SSL certificate problem: unable to get local issuer certificate"), "\(untrusted.stdout)")
        // OpenSSL's and curl's own variables are not how pulse-ingest is told about CAs.
        let ignored = try await Self.run(feed, environment: [
            "SSL_CERT_FILE": servers.file("ca_a.pem"), "CURL_CA_BUNDLE": servers.file("ca_a.pem"),
            "SSL_CERT_DIR": servers.file("dir_a"),
        ])
        #expect(ignored.status == 65, "\(ignored.stdout)")

        let bundle = try await Self.run(feed, environment: ["PULSE_CA_FILE": servers.file("ca_a.pem")])
        #expect(bundle.status == 0, "\(bundle.stdout) \(bundle.stderr)")
        #expect(bundle.stdout.contains("Private CA works"))
        let folder = try await Self.run(feed, environment: ["PULSE_CA_PATH": servers.file("dir_a")])
        #expect(folder.status == 0, "\(folder.stdout) \(folder.stderr)")
        let article = try await Self.run(["--dump-article", servers.url("a", "/page.html")] + networks,
                                         environment: ["PULSE_CA_FILE": servers.file("ca_a.pem")])
        #expect(article.status == 0, "\(article.stdout) \(article.stderr)")
        #expect(article.stdout.contains("Private CA works"))

        let downgrade = try await Self.run(["--dump-feed", servers.url("a", "/redirect?to=http://127.0.0.1:1/feed.xml")] + networks,
                                           environment: ["PULSE_CA_FILE": servers.file("ca_a.pem")])
        #expect(downgrade.status == 65)
        #expect(downgrade.stdout.contains("refused redirect from https to plain http: http://127.0.0.1:1/feed.xml"),
                "\(downgrade.stdout)")
    }

    /// A missing or wrong CA setting stops the start with status 64, naming the variable and the path.
    @Test func badCAVariablesStopTheStart() async throws {
        let servers = try await offThePool { try LoopbackTLSServers() }
        defer { servers.stop() }
        let missing = servers.folder.appendingPathComponent("missing.pem").path
        let config = Self.root.appendingPathComponent("feeds.yaml").path
        for arguments in [["--dump-feed", servers.url("a")], ["--dump-article", servers.url("a", "/page.html")],
                          ["--once", "--config", config]] {
            let run = try await Self.run(arguments, environment: ["PULSE_CA_FILE": missing])
            #expect(run.status == 64, "\(arguments): \(run.stderr)")
            #expect(run.stderr.contains("PULSE_CA_FILE '\(missing)' cannot be read: no such file"), "\(run.stderr)")
        }
        let cases = [
            ("PULSE_CA_FILE", servers.file("dir_a"), "cannot be read: it is a directory"),
            ("PULSE_CA_FILE", servers.folder.appendingPathComponent("a.key").path, "holds no PEM certificate"),
            ("PULSE_CA_PATH", servers.file("ca_a.pem"), "is not a folder"),
            ("PULSE_CA_PATH", servers.folder.path, "holds no certificate under a hashed name (HASH.0): run `openssl rehash"),
        ]
        for (variable, path, reason) in cases {
            let run = try await Self.run(["--dump-feed", servers.url("a")], environment: [variable: path])
            #expect(run.status == 64, "\(variable)=\(path): \(run.stderr)")
            #expect(run.stderr.contains("\(variable) '\(path)' \(reason)"), "\(run.stderr)")
        }
    }

    /// Whether this machine lets the tests mount over /etc/ssl/certs in a private namespace (root).
    static let mountNamespaces: Bool = {
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        probe.arguments = ["--mount", "--", "/bin/sh", "-c", #"mount --bind "$0" "$0""#, NSTemporaryDirectory()]
        probe.standardError = FileHandle.nullDevice
        guard (try? probe.run()) != nil else { return false }
        probe.waitUntilExit()
        return probe.terminationStatus == 0
    }()

    /// With libcurl's Debian defaults (the bundle /etc/ssl/certs/ca-certificates.crt and the hashed
    /// folder /etc/ssl/certs), replaced here by a stand-in whose bundle holds CA B and whose folder
    /// holds CA C: one PULSE_CA_* variable replaces one of the two system locations, so the
    /// system's CAs stay trusted through the other; both variables replace both.
    @Test(.enabled(if: mountNamespaces, "needs root and mount namespaces (unshare --mount)"))
    func systemCAsStayTrustedBesideOneVariable() async throws {
        let servers = try await offThePool { try LoopbackTLSServers() }
        defer { servers.stop() }
        let arguments = ["--dump-feed", servers.url("a"), servers.url("b"), servers.url("c"), "--allow-networks", "127.0.0.0/8"]
        let expectations: [([String: String], [Bool])] = [
            ([:], [false, true, true]),
            (["PULSE_CA_FILE": servers.file("ca_a.pem")], [true, false, true]),
            (["PULSE_CA_PATH": servers.file("dir_a")], [true, true, false]),
            (["PULSE_CA_FILE": servers.file("ca_a.pem"), "PULSE_CA_PATH": servers.file("dir_c")], [true, false, true]),
        ]
        for (environment, trusted) in expectations {
            let run = try await Self.run(arguments, environment: environment, systemCAs: servers.file("system"))
            let lines = run.stdout.split(separator: "\n")
            #expect(lines.map { !$0.hasPrefix("{\"error\"") } == trusted, "\(environment): \(run.stdout) \(run.stderr)")
        }
    }

    /// The service counts refusals in `pulse_fetch_redirects_refused_total`, under the reasons
    /// the metrics create at 0.
    @Test func theServiceCountsRefusedRedirects() async throws {
        #expect(PulseMetrics.redirectRefusalReasons == RedirectRefusal.allCases.map(\.rawValue))
        let servers = try await offThePool { try LoopbackTLSServers() }
        defer { servers.stop() }
        var environment = FetchEnvironment()
        environment.caFile = servers.file("ca_a.pem")
        let metrics = PulseMetrics()
        var configuration = PulseConfiguration().fetcherConfiguration(environment: environment, allowedNetworks: [])
            .countingRefusals(in: metrics)
        configuration.allowLoopbackForTesting = true
        let fetcher = HTTPFetcher(configuration: configuration)
        defer { fetcher.shutdown() }
        let target = "http://127.0.0.1:1/feed.xml"
        await #expect(throws: FetchError.insecureRedirect(url: target)) {
            try await fetcher.fetch(FetchRequest(url: servers.url("a", "/redirect?to=\(target)"), kind: .feed))
        }
        #expect(metrics.exposition().contains(#"pulse_fetch_redirects_refused_total{reason="https_to_http"} 1"#))
    }

    @Test func theFetcherGetsEveryFetchSetting() {
        var environment = FetchEnvironment()
        environment.userAgent = "agent/1"
        environment.resolve = ["a.example:443:192.0.2.1"]
        environment.caFile = "/etc/pulse-ingest/ca.pem"
        environment.caPath = "/etc/pulse-ingest/cas"
        var settings = PulseConfiguration()
        settings.fetch.allowHTTPSDowngrade = true
        let configuration = settings.fetcherConfiguration(environment: environment, allowedNetworks: [])
        #expect(configuration.userAgent == "agent/1" && configuration.resolve == ["a.example:443:192.0.2.1"])
        #expect(configuration.caFile == "/etc/pulse-ingest/ca.pem" && configuration.caPath == "/etc/pulse-ingest/cas")
        #expect(configuration.allowHTTPSDowngrade)
        #expect(!PulseConfiguration().fetcherConfiguration(environment: FetchEnvironment(), allowedNetworks: []).allowHTTPSDowngrade)
    }
}
