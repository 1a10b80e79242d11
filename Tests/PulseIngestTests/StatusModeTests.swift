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
            // The fleet's figures (computed here: no daemon has), with their age.
            #expect(lines.last?.hasPrefix("3 sources, 3 active, 2 failing, 1 with an open circuit, ") == true, "\(table.stdout)")
            #expect(lines.last?.contains("(fleet figures ") == true, "\(table.stdout)")

            #expect(try await CommandLineTests.run(["--json", "--config", config], environment: env).status == 64)
        }
    }

    /// Past the default limit: the worst 50 shown, `--limit N` and `--all` streamed in batches
    /// of the cursor (1,230 rows: three FETCHes), the same order in every form.
    @Test func statusLimitsByDefaultAndStreamsEverySourceOnRequest() async throws {
        let server = try FixtureFeeds.feedServer(now: Date())
        defer { server.stop() }
        try await withMigratedConfig(server: server, feeds: 6...8) { database, config, env in
            let admin = try await database.connect(serviceRole: false)
            try await admin.query("""
                INSERT INTO public.sources (name, slug, feed_url, is_active, consecutive_failures, last_fetched_at)
                SELECT 'Bulk ' || i, 'bulk-' || lpad(i::text, 4, '0'), 'https://example.com/' || i || '.xml',
                       i % 10 <> 0, i % 7, now() - make_interval(mins => i)
                FROM generate_series(1, 1227) AS i
                """, label: "bulk sources")
            await admin.close()

            let all = try await CommandLineTests.run(["--status", "--json", "--all", "--config", config], environment: env)
            #expect(all.status == 0, "\(all.stderr)")
            let every = try #require(try JSONSerialization.jsonObject(with: Data(all.stdout.utf8)) as? [[String: Any]])
            #expect(every.count == 1230)
            let slugs = every.compactMap { $0["slug"] as? String }
            #expect(Set(slugs).count == 1230)
            // Worst first: the active ones, most failures first; then the inactive.
            let active = every.map { $0["active"] as? Bool == true }
            #expect(active.firstIndex(of: false) == 1230 - 122 && !active.suffix(122).contains(true))
            let failures = every.prefix(1230 - 122).compactMap { $0["consecutive_failures"] as? Int }
            #expect(failures == failures.sorted(by: >))

            let limited = try await CommandLineTests.run(["--status", "--json", "--config", config], environment: env)
            let worst = try #require(try JSONSerialization.jsonObject(with: Data(limited.stdout.utf8)) as? [[String: Any]])
            #expect(worst.compactMap { $0["slug"] as? String } == Array(slugs.prefix(50)))
            let three = try await CommandLineTests.run(["--status", "--json", "--limit", "3", "--config", config],
                                                       environment: env)
            let top = try #require(try JSONSerialization.jsonObject(with: Data(three.stdout.utf8)) as? [[String: Any]])
            #expect(top.compactMap { $0["slug"] as? String } == Array(slugs.prefix(3)))

            let table = try await CommandLineTests.run(["--status", "--config", config], environment: env)
            let lines = table.stdout.split(separator: "\n").map(String.init)
            #expect(lines.count == 1 + 50 + 2, "\(table.stdout)")
            #expect(lines[1].hasPrefix(slugs[0]))
            #expect(lines[51] == "the 50 worst of 1230 shown (--limit N for more, --all for every source)")
            #expect(lines[52].hasPrefix("1230 sources, 1108 active, "), "\(lines[52])")
            let whole = try await CommandLineTests.run(["--status", "--all", "--config", config], environment: env)
            let wholeLines = whole.stdout.split(separator: "\n").map(String.init)
            #expect(wholeLines.count == 1 + 1230 + 1)
            #expect(wholeLines.dropFirst().prefix(1230).map { String($0.prefix { $0 != " " }) } == slugs)

            let empty = try await CommandLineTests.run(["--status", "--all", "--limit", "3", "--config", config],
                                                       environment: env)
            #expect(empty.status == 64 && empty.stderr.contains("--all and --limit"), "\(empty.stderr)")
        }
    }
}
