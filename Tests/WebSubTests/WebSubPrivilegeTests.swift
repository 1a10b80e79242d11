import ArticleStore
import Foundation
import Postgres
import Testing
import TestSupport

/// The WebSub secret is the worker's alone: `anon` and `authenticated` cannot read the table,
/// while `service_role` (the worker) can.
@Suite(.tags(.integration), .needsDatabase)
struct WebSubPrivilegeTests {
    @Test func secretsAreNotReadableByTheAPIRoles() async throws {
        try await TestDatabase.with { database in
            let (store, sources) = try await Seed.store(database, sources: [Seed.source("alpha")])
            let id = try #require(sources["alpha"]?.id)
            try await store.observeHub(sourceID: id, hub: "https://hub.example/", topic: "https://feeds.example.com/a",
                                       secret: String(repeating: "ab", count: 32), token: String(repeating: "cd", count: 32))
            #expect(try await store.webSubSubscription(slug: "alpha")?.secret.count == 64)
            await store.connection.close()
            for role in ["anon", "authenticated"] {
                let connection = try await database.connect(serviceRole: false)
                try await connection.useRole(role)
                await #expect(throws: (any Error).self, "\(role) read the secret") {
                    _ = try await connection.query("SELECT secret FROM public.websub_subscriptions", label: "secret")
                }
                await connection.close()
            }
        }
    }
}

/// `--status` shows a source's subscription (state, hub, lease end), never its secret.
@Suite(.tags(.integration), .needsDatabase)
struct WebSubStatusTests {
    @Test func statusShowsTheSubscription() async throws {
        try await TestDatabase.with { database in
            let (store, sources) = try await Seed.store(database, sources: [Seed.source("alpha"), Seed.source("beta")])
            let id = try #require(sources["alpha"]?.id)
            try await store.observeHub(sourceID: id, hub: "https://hub.example/", topic: "https://feeds.example.com/a",
                                       secret: String(repeating: "ab", count: 32), token: String(repeating: "cd", count: 32))
            #expect(try await store.confirmWebSub(slug: "alpha", token: String(repeating: "cd", count: 32), mode: .subscribe,
                                                  topic: "https://feeds.example.com/a",
                                                  leaseSeconds: 3600, renewAt: Date().addingTimeInterval(3000)))
            let statuses = try await store.sourceStatuses()
            let alpha = try #require(statuses.first { $0.slug == "alpha" })
            #expect(alpha.websubState == "subscribed" && alpha.websubHub == "https://hub.example/")
            #expect(alpha.websubLeaseUntil.map { $0 > Date() } == true)
            #expect(statuses.first { $0.slug == "beta" }?.websubState == nil)
            #expect(try await store.webSubStateCounts() == ["subscribed": 1])
            await store.connection.close()
        }
    }
}
