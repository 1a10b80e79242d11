import Foundation
import LoopbackHTTPServer
import Postgres
import Testing
import TestSupport

/// The binary as the issue configures it: `websub:` on, `PULSE_RESOLVE` pinning the hub's and the
/// feed's names to loopback. The service polls the feed, discovers and subscribes to the hub, the
/// hub verifies against the service's listener, and a signed push becomes a row.
@Suite(.tags(.integration), .needsDatabase)
struct WebSubServiceTests {
    @Test func pushedItemBecomesARowThroughTheBinary() async throws {
        let hub = try LoopbackHub()
        defer { hub.stop() }
        let port = hub.server.port
        let listen = try LoopbackHTTPServer.closedPort()
        let topic = "https://feeds.example.com/alpha.xml"
        hub.serve("/feeds/alpha.xml", body: LoopbackHub.atom(title: "Alpha", hub: "http://hub.example:\(port)/hub", topic: topic,
                                                              entries: [(id: "urn:a:1", url: "https://news.example.com/a/1")]))
        try await TestDatabase.with { database in
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("websub-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let config = folder.appendingPathComponent("feeds.yaml").path
            try """
                version: 1
                enrichment: { enabled: false }
                websub: { enabled: true, callback_url: "http://127.0.0.1:\(listen)/websub", listen: "127.0.0.1:\(listen)", lease_seconds: 864000, allow_http_hubs: true }
                sources:
                  - { slug: alpha, name: Alpha, feed_url: "http://feeds.example.com:\(port)/feeds/alpha.xml", category: world, language: en }

                """.write(toFile: config, atomically: true, encoding: .utf8)
            let env = ["DATABASE_URL": database.url,
                       "PULSE_RESOLVE": "hub.example:\(port):127.0.0.1,feeds.example.com:\(port):127.0.0.1"]
            let migrated = try await CommandLineTests.run(["--migrate", "--config", config], environment: env)
            try #require(migrated.status == 0, "\(migrated.stderr)")
            let service = try ServiceProcess(config: config, databaseURL: database.url, environment: env)
            let callback = "http://127.0.0.1:\(listen)/websub/alpha"
            // Waits (never a timed assertion): the subscription is verified, then the row appears.
            var secret: String?
            var tokened = callback
            for _ in 0..<600 where secret == nil {
                if let request = hub.subscription(for: callback), request.verification?.status == 200 {
                    (secret, tokened) = (request.secret, request.callback)
                } else { try await Task.sleep(for: .milliseconds(100)) }
            }
            try #require(secret != nil, "no verified subscription:\n\(service.logTail)")
            // The callback carries the subscription's token; the bare slug's path is not an endpoint.
            #expect(tokened.count == callback.count + 65)
            #expect(try await hub.push("<feed/>", to: callback, topic: topic, secret: secret).status == 404)
            let pushed = LoopbackHub.atom(title: "Pushed", hub: nil, topic: topic,
                                          entries: [(id: "urn:p:1", url: "https://news.example.com/p/1")])
            #expect(try await hub.push(pushed, to: tokened, topic: topic, secret: secret).status == 202)
            let db = try await database.connect(serviceRole: false)
            var found = 0
            for _ in 0..<300 where found == 0 {
                found = try await db.query("SELECT count(*) AS n FROM public.articles WHERE url = 'https://news.example.com/p/1'",
                                           label: "pushed row").rows.first?.int("n") ?? 0
                if found == 0 { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(found == 1, "\(service.logTail)")
            let state = try await db.query("SELECT state FROM public.websub_subscriptions", label: "state").rows.first?["state"]
            #expect(state == "subscribed")
            await db.close()
            #expect(try await service.stop() == 0)
        }
    }
}
