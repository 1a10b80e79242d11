import Foundation
import TestSupport
import Testing

/// `--status` reads real rows: last success, last error from fetch_logs, failures, circuit,
/// next due and the last day's items, worst source first.
@Suite(.tags(.integration), .needsDatabase)
struct StatusModeTests {
    @Test func statusListsSourcesWorstFirstAsTableAndJSON() async throws {
        let server = try FixtureFeeds.feedServer(now: Date())
        defer { server.stop() }
        try await withMigratedConfig(server: server, feeds: 6...8) { database, config, env in
            let once = try await CommandLineTests.run(["--once", "--config", config, "--allow-networks", "127.0.0.1/32"],
                                                      environment: env)
            #expect(once.status == 3, "\(once.stderr)")
            // svc-8 has since failed often enough for its circuit to open.
            let admin = try await database.connect(serviceRole: false)
            try await admin.query("""
                UPDATE public.sources SET consecutive_failures = 6, circuit_open_until = now() + interval '2 hours'
                WHERE slug = 'svc-8'
                """, label: "open circuit")
            await admin.close()

            let json = try await CommandLineTests.run(["--status", "--json", "--config", config], environment: env)
            #expect(json.status == 0, "\(json.stderr)")
            let rows = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
            #expect(rows.map { $0["slug"] as? String } == ["svc-8", "svc-7", "svc-6"])
            #expect(rows.map { $0["consecutive_failures"] as? Int } == [6, 1, 0])
            #expect(rows.map { $0["items_last_24h"] as? Int } == [5, 0, 5])
            #expect(rows.allSatisfy { $0["active"] as? Bool == true })
            #expect((rows[1]["last_error"] as? String)?.contains("HTTP status 500") == true, "\(rows[1])")
            #expect(rows[1]["last_success_at"] is NSNull)
            #expect(rows[2]["last_error"] is NSNull)
            #expect(rows[0]["circuit_open_until"] is String)
            let nextDue = try #require(rows[0]["next_due_at"] as? String)
            let circuit = try #require(rows[0]["circuit_open_until"] as? String)
            #expect(nextDue == circuit, "an open circuit delays the next fetch")

            let table = try await CommandLineTests.run(["--status", "--config", config], environment: env)
            #expect(table.status == 0, "\(table.stderr)")
            let lines = table.stdout.split(separator: "\n").map(String.init)
            #expect(lines.first?.hasPrefix("SOURCE") == true, "\(table.stdout)")
            #expect(lines.dropFirst().first?.hasPrefix("svc-8") == true)
            #expect(lines.dropFirst().first?.contains("open until in ") == true, "\(table.stdout)")
            #expect(lines.contains { $0.hasPrefix("svc-7") && $0.contains("never") && $0.contains("HTTP status 500") })
            #expect(lines.last == "3 sources, 3 active, 2 failing, 1 with an open circuit")

            #expect(try await CommandLineTests.run(["--json", "--config", config], environment: env).status == 64)
        }
    }
}
