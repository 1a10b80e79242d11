import ArticleStore
import Foundation
import Ingestion
import LoopbackHTTPServer
import Postgres
import PulseModel
import Testing
import TestSupport
import WebSub

/// WebSub end to end against a loopback hub of our own: discovery, subscription with
/// verification of intent, signed pushes stored through the ingest path, refusals, renewal,
/// unsubscription, two daemons on one database, and a hub that is down.
@Suite(.tags(.integration), .needsDatabase)
struct WebSubIntegrationTests {
    static let hubHost = "hub.example"
    static let topic = "https://feeds.example.com/alpha.xml"

    /// A migrated database with source `alpha` polling the hub server's feed, one daemon, and the
    /// hub: `body` gets them all and everything is stopped after.
    static func withSetup(maxBodyBytes: Int = 1 << 20, linkHeader: Bool = false,
                          _ body: (TestDatabase, LoopbackHub, WebSubDaemon, ArticleStore) async throws -> Void) async throws {
        let hub = try LoopbackHub()
        defer { hub.stop() }
        try await TestDatabase.with { database in
            var alpha = Seed.source("alpha")
            alpha.feedURL = hub.base + "/feeds/alpha.xml"
            let (store, _) = try await Seed.store(database, sources: [alpha])
            let hubURL = "http://\(hubHost):\(hub.server.port)/hub"
            let entries = [(id: "urn:a:1", url: "https://news.example.com/a/1")]
            if linkHeader {
                hub.serve("/feeds/alpha.xml", body: LoopbackHub.atom(title: "Alpha", hub: nil, topic: nil, entries: entries),
                          link: "<\(hubURL)>; rel=\"hub\", <\(topic)>; rel=\"self\"")
            } else {
                hub.serve("/feeds/alpha.xml", body: LoopbackHub.atom(title: "Alpha", hub: hubURL, topic: topic, entries: entries))
            }
            let daemon = try await WebSubDaemon(database: database, hubHost: hubHost, hubPort: hub.server.port,
                                                maxBodyBytes: maxBodyBytes)
            do {
                try await body(database, hub, daemon, store)
            } catch {
                await daemon.stop()
                throw error
            }
            await daemon.stop()
            await store.connection.close()
        }
    }

    static func poll(_ daemon: WebSubDaemon, _ store: ArticleStore) async throws -> PassSummary {
        guard let source = try await store.source(slug: "alpha") else { throw TestSetupError("no source") }
        return try await daemon.pass.run(sources: [source])
    }

    static func subscription(_ store: ArticleStore) async throws -> WebSubSubscription? {
        try await store.webSubSubscription(slug: "alpha")
    }

    static func rowCount(_ store: ArticleStore) async throws -> Int {
        try await store.connection.query("SELECT count(*) AS n FROM public.articles", label: "count").rows.first?.int("n") ?? -1
    }

    /// The callback the hub was given for `alpha`: `{prefix}/alpha/{token}`.
    static func live(_ hub: LoopbackHub, _ daemon: WebSubDaemon) throws -> String {
        try #require(hub.subscription(for: daemon.callback("alpha"))?.callback)
    }

    static func entry(_ n: Int) -> String {
        LoopbackHub.atom(title: "Pushed", hub: nil, topic: topic, entries: [(id: "urn:p:\(n)", url: "https://news.example.com/p/\(n)")])
    }

    @Test func discoveryFromTheFeed() async throws {
        try await Self.withSetup { _, hub, daemon, store in
            let summary = try await Self.poll(daemon, store)
            #expect(summary.inserted == 1)
            let found = try #require(try await Self.subscription(store))
            #expect(found.hub == "http://\(Self.hubHost):\(hub.server.port)/hub")
            #expect(found.topic == Self.topic)
            #expect(found.state == .pending && found.pendingMode == .subscribe)
            #expect(found.secret.utf8.count == 64)
        }
    }

    @Test func discoveryFromTheLinkHeader() async throws {
        try await Self.withSetup(linkHeader: true) { _, hub, daemon, store in
            _ = try await Self.poll(daemon, store)
            let found = try #require(try await Self.subscription(store))
            #expect(found.hub == "http://\(Self.hubHost):\(hub.server.port)/hub")
            #expect(found.topic == Self.topic)
        }
    }

    /// Subscribe (the hub verifies intent), push a signed entry, find it stored once; the same
    /// entry polled afterwards is not stored twice.
    @Test func subscribeVerifyPushStore() async throws {
        try await Self.withSetup { _, hub, daemon, store in
            _ = try await Self.poll(daemon, store)
            #expect(try await daemon.subscriber.runDue() == 1)
            let request = try #require(hub.subscription(for: daemon.callback("alpha")))
            #expect(request.topic == Self.topic && request.leaseSeconds == 864_000)
            #expect(request.verification?.status == 200 && request.verification?.body.count == 36)
            let live = try #require(try await Self.subscription(store))
            #expect(live.state == .subscribed && live.pendingMode == nil)
            #expect(try await store.source(slug: "alpha")?.pushSubscribed == true)

            #expect(request.callback.hasPrefix(daemon.callback("alpha") + "/") && request.callback.count == daemon.callback("alpha").count + 65)
            let reply = try await hub.push(Self.entry(1), to: request.callback, topic: Self.topic, secret: request.secret)
            #expect(reply.status == 202)
            await daemon.drain()
            #expect(try await Self.rowCount(store) == 2)
            let pushed = try await store.connection.query("""
                SELECT count(*) AS n FROM public.articles WHERE url = 'https://news.example.com/p/1'
                """, label: "pushed").rows.first?.int("n")
            #expect(pushed == 1)
            // Polled again, with the pushed entry now in the feed too: stored exactly once.
            hub.serve("/feeds/alpha.xml", body: LoopbackHub.atom(title: "Alpha", hub: "http://\(Self.hubHost):\(hub.server.port)/hub",
                                                                  topic: Self.topic, entries: [(id: "urn:p:1", url: "https://news.example.com/p/1")]))
            let again = try await Self.poll(daemon, store)
            #expect(again.inserted == 0)
            #expect(try await Self.rowCount(store) == 2)
        }
    }

    @Test func wrongAndMissingSignaturesStoreNothing() async throws {
        try await Self.withSetup { _, hub, daemon, store in
            _ = try await Self.poll(daemon, store)
            try await daemon.subscriber.runDue()
            let secret = hub.subscription(for: daemon.callback("alpha"))?.secret
            let callback = try Self.live(hub, daemon)
            let forged = try await hub.push(Self.entry(1), to: callback, topic: Self.topic, secret: secret,
                                      forgedSignature: true)
            let unsigned = try await hub.push(Self.entry(2), to: callback, topic: Self.topic, secret: nil)
            let badAlgorithm = try await hub.push(Self.entry(3), to: callback, topic: Self.topic, secret: secret,
                                            algorithm: "md5")
            // A wrong MAC is answered 2xx as the spec allows (it tells a forger nothing); no usable
            // signature header is refused before the body is read. All are counted.
            #expect(forged.status == 202)
            #expect(unsigned.status == 403 && badAlgorithm.status == 403)
            await daemon.drain()
            #expect(try await Self.rowCount(store) == 1)
            let reasons: [String] = daemon.rejected.withLock { $0 }.sorted()
            #expect(reasons == ["bad_signature", "malformed_signature", "missing_signature"])
        }
    }

    @Test func unknownSlugAndTopicAre404() async throws {
        try await Self.withSetup { _, hub, daemon, store in
            _ = try await Self.poll(daemon, store)
            try await daemon.subscriber.runDue()
            let secret = hub.subscription(for: daemon.callback("alpha"))?.secret
            let callback = try Self.live(hub, daemon)
            let token = String(callback.split(separator: "/").last ?? "")
            let wrongToken = String(repeating: "0", count: token.count)
            // Verification for a slug we do not have, for another topic, with no pending request,
            // on the bare slug, and with a wrong token.
            let query = { (topic: String) in [("hub.mode", "subscribe"), ("hub.topic", topic), ("hub.challenge", "c"),
                                              ("hub.lease_seconds", "3600")] }
            #expect(try await LoopbackHub.get(daemon.callback("nobody") + "/" + token, query: query(Self.topic)).status == 404)
            #expect(try await LoopbackHub.get(callback, query: query("https://other.example/feed")).status == 404)
            #expect(try await LoopbackHub.get(callback, query: query(Self.topic)).status == 404)
            #expect(try await LoopbackHub.get(callback, query: [("hub.mode", "denied"),
                                                                ("hub.topic", "https://other.example/feed")]).status == 404)
            // Pushes for an unknown slug, the bare slug, a wrong token or another topic, and other
            // paths and methods.
            #expect(try await hub.push(Self.entry(1), to: daemon.callback("nobody") + "/" + token, topic: Self.topic,
                                       secret: secret).status == 404)
            #expect(try await hub.push(Self.entry(1), to: daemon.callback("alpha"), topic: Self.topic, secret: secret).status == 404)
            #expect(try await hub.push(Self.entry(1), to: daemon.callback("alpha") + "/" + wrongToken, topic: Self.topic,
                                       secret: secret).status == 404)
            #expect(try await hub.push(Self.entry(1), to: callback, topic: "https://other.example/feed",
                                 secret: secret).status == 404)
            #expect(try await LoopbackHub.request(port: daemon.port, method: "PUT", target: "/websub/alpha/" + token).status == 404)
            #expect(try await LoopbackHub.request(port: daemon.port, method: "GET", target: "/metrics").status == 404)
            await daemon.drain()
            #expect(try await Self.rowCount(store) == 1)
        }
    }

    @Test func pushLargerThanTheLimitIsRefused() async throws {
        try await Self.withSetup(maxBodyBytes: 2048) { _, hub, daemon, store in
            _ = try await Self.poll(daemon, store)
            try await daemon.subscriber.runDue()
            let secret = hub.subscription(for: daemon.callback("alpha"))?.secret
            let padding = String(repeating: "x", count: 4096)
            let big = Self.entry(9).replacingOccurrences(of: "<title>Pushed", with: "<title>Pushed \(padding)")
            let reply = try await hub.push(big, to: try Self.live(hub, daemon), topic: Self.topic, secret: secret)
            #expect(reply.status == 413)
            await daemon.drain()
            #expect(try await Self.rowCount(store) == 1)
            #expect(daemon.rejected.withLock { $0 } == ["too_large"])
        }
    }

    /// A lease the hub shortens is renewed before it ends: the action falls due at 90% of it.
    @Test func renewalBeforeExpiry() async throws {
        try await Self.withSetup { _, hub, daemon, store in
            hub.grant(leaseSeconds: 600)
            _ = try await Self.poll(daemon, store)
            try await daemon.subscriber.runDue()
            let first = try #require(try await Self.subscription(store)?.leaseExpiresAt)
            // Nothing is due before the renewal point...
            #expect(try await daemon.subscriber.runDue(now: Date().addingTimeInterval(400)) == 0)
            // ...and at it, still inside the lease, the subscription is renewed and verified again.
            #expect(try await daemon.subscriber.runDue(now: first.addingTimeInterval(-30)) == 1)
            #expect(hub.requests.filter { $0.mode == "subscribe" }.count == 2)
            #expect(hub.requests.last?.verification?.status == 200)
            let renewed = try #require(try await Self.subscription(store))
            #expect(renewed.state == .subscribed && renewed.leaseExpiresAt! >= first)
        }
    }

    @Test func unsubscribeOnDeactivation() async throws {
        try await Self.withSetup { _, hub, daemon, store in
            _ = try await Self.poll(daemon, store)
            try await daemon.subscriber.runDue()
            try await store.connection.query("UPDATE public.sources SET is_active = false WHERE slug = 'alpha'", label: "off")
            #expect(try await daemon.subscriber.runDue() == 1)
            let last = try #require(hub.requests.last)
            #expect(last.mode == "unsubscribe" && last.topic == Self.topic && last.verification?.status == 200)
            #expect(try await Self.subscription(store)?.state == .unsubscribed)
        }
    }

    @Test func unsubscribeWhenTheFeedStopsNamingTheHub() async throws {
        try await Self.withSetup { _, hub, daemon, store in
            _ = try await Self.poll(daemon, store)
            try await daemon.subscriber.runDue()
            hub.serve("/feeds/alpha.xml", body: LoopbackHub.atom(title: "Alpha", hub: nil, topic: nil,
                                                                  entries: [(id: "urn:a:1", url: "https://news.example.com/a/1")]))
            _ = try await Self.poll(daemon, store)
            #expect(try await daemon.subscriber.runDue() == 1)
            #expect(hub.requests.last?.mode == "unsubscribe")
            #expect(try await Self.subscription(store)?.state == .unsubscribed)
            #expect(try await store.source(slug: "alpha")?.pushSubscribed == false)
        }
    }

    /// Daemon A subscribed; the push reaches daemon B (another listener on the same database).
    @Test func twoDaemonsEitherReceives() async throws {
        try await Self.withSetup { database, hub, daemon, store in
            _ = try await Self.poll(daemon, store)
            try await daemon.subscriber.runDue()
            let other = try await WebSubDaemon(database: database, hubHost: Self.hubHost, hubPort: hub.server.port,
                                               workerID: "daemon-b")
            let secret = hub.subscription(for: daemon.callback("alpha"))?.secret
            let callback = try Self.live(hub, daemon)
            let token = String(callback.split(separator: "/").last ?? "")
            #expect(try await hub.push(Self.entry(1), to: callback, topic: Self.topic, secret: secret).status == 202)
            #expect(try await hub.push(Self.entry(2), to: other.callback("alpha") + "/" + token, topic: Self.topic,
                                       secret: secret).status == 202)
            await daemon.drain()
            await other.drain()
            #expect(try await Self.rowCount(store) == 3)
            // Only one daemon sends a given request: B finds nothing to claim while A's is pending.
            #expect(try await other.subscriber.runDue() == 0)
            await other.stop()
        }
    }

    /// The hub is down: the subscription fails, the source stays on its normal schedule.
    @Test func hubDownLeavesNormalPolling() async throws {
        try await Self.withSetup { _, hub, daemon, store in
            _ = try await Self.poll(daemon, store)
            hub.stop()
            try await daemon.subscriber.runDue()
            let failed = try #require(try await Self.subscription(store))
            #expect(failed.state == .failed && failed.failures == 1)
            let source = try #require(try await store.source(slug: "alpha"))
            #expect(!source.pushSubscribed)
            let row = try await store.connection.query("""
                SELECT next_due_at <= now() AS due FROM public.sources WHERE slug = 'alpha'
                """, label: "due").rows.first
            #expect(row?.bool("due") == true)
        }
    }

    /// A hub that accepts but never verifies fails the subscription once the wait is over; the
    /// retry after the backoff subscribes when the hub behaves again. A denial is recorded.
    @Test func unverifiedRequestFailsThenRetriesAndDenialIsRecorded() async throws {
        try await Self.withSetup { _, hub, daemon, store in
            hub.verifies(false)
            _ = try await Self.poll(daemon, store)
            let now = Date()
            #expect(try await daemon.subscriber.runDue(now: now) == 1)
            #expect(try await Self.subscription(store)?.state == .pending)
            #expect(try await daemon.subscriber.runDue(now: now.addingTimeInterval(3601)) == 1)
            let failed = try #require(try await Self.subscription(store))
            #expect(failed.state == .failed && failed.failures == 1)
            hub.verifies(true)
            #expect(try await daemon.subscriber.runDue(now: now.addingTimeInterval(3601 + 901)) == 1)
            #expect(try await Self.subscription(store)?.state == .subscribed)
            // The hub later denies the subscription: recorded, and the source polls normally.
            let denied = try await LoopbackHub.get(try Self.live(hub, daemon), query: [
                ("hub.mode", "denied"), ("hub.topic", Self.topic), ("hub.reason", "publisher said no")])
            #expect(denied.status == 200)
            #expect(try await Self.subscription(store)?.state == .denied)
            #expect(try await store.source(slug: "alpha")?.pushSubscribed == false)
        }
    }

    /// A subscribed source is polled at the relaxed interval; an unsubscribed one adaptively.
    @Test func subscribedSourcesPollRelaxed() async throws {
        try await Self.withSetup { _, hub, daemon, store in
            var pass = daemon.pass
            pass.scheduling = PassScheduling(workerID: "daemon-a", policy: .init())
            _ = try await pass.run(sources: [try #require(try await store.source(slug: "alpha"))])
            try await daemon.subscriber.runDue()
            let now = Date()
            _ = try await pass.run(sources: [try #require(try await store.source(slug: "alpha"))], now: now)
            let due = try await store.connection.query("SELECT next_due_at FROM public.sources WHERE slug = 'alpha'",
                                                       label: "due").rows.first?["next_due_at"].flatMap(PostgresTimestamp.parse)
            #expect(abs((due ?? now).timeIntervalSince(now) - 24 * 3600) < 1)
            _ = hub
        }
    }
}
