import Foundation
import TestSupport
import Testing

/// `--once` next to a running service: it claims with the service's leases, so a source another
/// process holds is reported and left alone, and its own leases are gone when it exits.
@Suite(.tags(.integration), .needsDatabase)
struct OnceLeaseTests {
    @Test func onceSkipsSourcesLeasedByAnotherProcessAndReleasesItsOwn() async throws {
        let server = try FixtureFeeds.feedServer(now: Date())
        defer { server.stop() }
        try await withMigratedConfig(server: server, feeds: 8...10) { database, config, env in
            // svc-8: a live service's lease; svc-9: the lease of a service that died long ago.
            let admin = try await database.connect(serviceRole: false)
            try await admin.query("""
                UPDATE public.sources SET claimed_by = 'service-host:4242', lease_until = now() + interval '10 minutes'
                WHERE slug = 'svc-8'
                """, label: "live lease")
            try await admin.query("""
                UPDATE public.sources SET claimed_by = 'dead-host:1', lease_until = now() - interval '1 minute'
                WHERE slug = 'svc-9'
                """, label: "expired lease")

            let run = try await CommandLineTests.run(["--once", "--config", config, "--allow-networks", "127.0.0.1/32"],
                                                     environment: env)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.contains("SKIP  svc-8: leased by service-host:4242 until "), "\(run.stdout)")
            #expect(!run.stdout.contains("svc-8: 6 items"))
            #expect(run.stdout.contains("OK    svc-9: 6 items"), "\(run.stdout)")
            #expect(run.stdout.contains("OK    svc-10: 6 items"), "\(run.stdout)")
            #expect(run.stdout.contains("total: 2 sources"), "\(run.stdout)")

            let leases = try await admin.query("""
                SELECT slug, coalesce(claimed_by, '') AS owner,
                       (SELECT count(*) FROM public.articles a WHERE a.source_id = s.id) AS stored
                FROM public.sources s ORDER BY slug
                """, label: "leases after").rows.map { ($0["slug"] ?? "", $0["owner"] ?? "", $0.int("stored") ?? -1) }
            #expect(leases.map(\.0) == ["svc-10", "svc-8", "svc-9"])
            #expect(leases.map(\.1) == ["", "service-host:4242", ""], "the other's lease stays, ours are released")
            #expect(leases.map(\.2) == [5, 0, 5])
            await admin.close()
        }
    }
}
