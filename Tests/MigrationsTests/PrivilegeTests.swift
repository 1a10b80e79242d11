import ArticleStore
import Foundation
import Postgres
import PulseModel
import TestSupport
import Testing

/// The app's queries as role `anon` succeed; what the contract keeps private is refused.
@Suite(.tags(.integration), .needsDatabase)
struct PrivilegeTests {
    @Test func anonCanReadTheAppQueriesAndNothingPrivate() async throws {
        try await TestDatabase.with { database in
            let (store, sources) = try await Seed.store(database, sources: [
                Seed.source("world-en"), Seed.source("tech-pt", category: "technology", language: "pt"),
                Seed.source("hidden", active: false),
            ])
            let candidates = (1...5).map {
                ArticleCandidate(title: "Election results day \($0)", link: "https://news.example.com/e/\($0)",
                                 summary: "Votes are counted in the election", publishedAt: Date(timeIntervalSinceNow: -Double($0) * 60))
            }
            _ = try await store.insertArticles(candidates, source: sources["world-en"]!)
            await store.connection.close()

            let anon = try await database.connect(serviceRole: false)
            try await anon.useRole("anon")

            let list = try await anon.query("""
                SELECT id, title, url, published_at, source_name, category_slug FROM public.articles_with_source
                WHERE language = $1 AND category_slug = $2 ORDER BY published_at DESC LIMIT 20 OFFSET 0
                """, ["en", "world"], label: "app list")
            #expect(list.rows.count == 5)
            #expect(list.rows.first?["title"] == "Election results day 1")
            #expect(list.rows.first?["source_name"] == "Source world-en")

            let id = try #require(list.rows.first?["id"])
            let detail = try await anon.query("SELECT * FROM public.articles_with_source WHERE id = $1::uuid",
                                              [id], label: "app detail")
            #expect(detail.rows.count == 1)
            #expect(!detail.columns.contains("url_hash"))

            let search = try await anon.query("SELECT * FROM public.search_articles($1, 20, 'en', 0)",
                                              ["election"], label: "search")
            #expect(search.rows.count == 5)
            let longQuery = String(repeating: "a", count: 201)
            #expect(try await anon.query("SELECT * FROM public.search_articles($1)", [longQuery],
                                         label: "long search").rows.isEmpty)
            #expect(try await anon.query("SELECT * FROM public.search_articles('')", label: "empty search").rows.isEmpty)

            let visibleSources = try await anon.query("SELECT slug FROM public.sources ORDER BY slug", label: "sources")
            #expect(visibleSources.rows.map { $0[0]! } == ["tech-pt", "world-en"])
            #expect(try await anon.query("SELECT count(*) FROM public.categories", label: "categories")
                .rows.first?.int("count") == 10)

            for (label, sql) in [
                ("url_hash", "SELECT url_hash FROM public.articles"),
                ("feed_url", "SELECT feed_url FROM public.sources"),
                ("fetch_logs", "SELECT * FROM public.fetch_logs"),
                ("source_health", "SELECT * FROM public.source_health"),
                ("maintenance rpc", "SELECT public.cleanup_old_articles(7)"),
                ("fetch state rpc", "SELECT public.batch_update_source_fetch_state('[]'::jsonb)"),
                ("write", "DELETE FROM public.articles"),
            ] {
                do {
                    try await anon.query(sql, label: label)
                    Issue.record("anon must be refused: \(label)")
                } catch let error as PostgresError {
                    #expect(error.sqlState == "42501", "\(label): \(error)")
                }
            }
            await anon.close()
        }
    }

    @Test func serviceRoleRunsMaintenanceRPCs() async throws {
        try await TestDatabase.with { database in
            let (store, sources) = try await Seed.store(database, sources: [Seed.source("a")])
            _ = try await store.insertArticles([ArticleCandidate(title: "t", link: "https://x.example/1",
                                                                 content: "body", imageURL: "https://x.example/i.jpg")],
                                               source: sources["a"]!)
            let db = store.connection
            #expect(await db.currentRole == "service_role")
            try await db.query("UPDATE public.articles SET created_at = now() - interval '8 days'", label: "age rows")
            // Upstream's caller gate: service_role alone is not enough without PostgREST's JWT claim
            // (or a direct session as `postgres`).
            do {
                try await db.query("SELECT public.cleanup_old_articles(7)", label: "rpc without claims")
                Issue.record("the caller gate must refuse a session without the service_role claim")
            } catch let error as PostgresError {
                #expect(error.sqlState == "42501", "\(error)")
            }
            try await db.query("SELECT set_config('request.jwt.claims', '{\"role\":\"service_role\"}', false)",
                               label: "claims as PostgREST sets them")
            #expect(try await db.query("SELECT public.prune_old_image_urls(3)", label: "rpc").rows.first?[0] == "1")
            #expect(try await db.query("SELECT public.prune_old_content(2)", label: "rpc").rows.first?[0] == "1")
            #expect(try await db.query("SELECT public.cleanup_old_articles(days_to_keep => 7)", label: "rpc").rows.first?[0] == "1")
            #expect(Int(try await db.query("SELECT public.get_db_size_bytes()", label: "rpc").rows.first?[0] ?? "") ?? 0 > 0)
            await db.close()
        }
    }
}
