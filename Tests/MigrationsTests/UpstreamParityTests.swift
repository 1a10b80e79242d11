import ArticleStore
import Foundation
import Migrations
import Postgres
import PulseModel
import TestSupport
import Testing

/// The live backend's security invariants and RPC signatures hold on a database `--migrate`
/// built from empty and on one the backend's migrations built first (the adoption path). The facts
/// come from the backend's `supabase/tests/security_invariants.sql` and migrations 020-036; the
/// checks are written here.
@Suite(.tags(.integration), .needsDatabase)
struct UpstreamParityTests {
    let logger = TestDatabase.logger

    enum Path: String, CaseIterable, Sendable { case fresh, adoption }

    func migrated(_ database: TestDatabase, _ path: Path) async throws -> PostgresConnection {
        let db = try await database.connect(serviceRole: false)
        if path == .adoption {
            try await db.executeScript(try fixture("backend-schema.sql"), label: "backend fixture")
        }
        _ = try await Migrator(logger: logger).migrate(on: db)
        return db
    }

    static let writeFunctions = ["cleanup_old_articles", "batch_update_article_images", "batch_update_article_content",
                                 "bump_backfill_attempts", "batch_update_source_fetch_state"]
    static let serviceOnly = writeFunctions + ["prune_old_image_urls", "prune_old_content", "get_db_size_bytes"]

    /// Each invariant as one query answering true when it holds.
    static let invariants: [(String, String)] = {
        let functionOID = { (name: String) in
            "(SELECT p.oid FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'public' AND p.proname = '\(name)' LIMIT 1)"
        }
        let all = { (names: [String], condition: (String) -> String) in
            names.map { "coalesce((\(condition($0))), false)" }.joined(separator: " AND ")
        }
        return [
            ("1 RLS on articles and fetch_logs", """
                SELECT bool_and(c.relrowsecurity) AND count(*) = 2 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE n.nspname = 'public' AND c.relname IN ('articles', 'fetch_logs')
                """),
            ("2 every SECURITY DEFINER function pins an empty search_path", """
                SELECT NOT EXISTS (SELECT 1 FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
                  WHERE n.nspname = 'public' AND p.prosecdef
                    AND NOT coalesce(p.proconfig && ARRAY['search_path=', 'search_path=""'], false))
                """),
            ("3 the five write functions exist and are SECURITY DEFINER",
             "SELECT " + all(writeFunctions) { "SELECT p.prosecdef FROM pg_proc p WHERE p.oid = \(functionOID($0))" }),
            ("4 write functions carry the request.jwt.claims gate; only service_role may execute",
             "SELECT " + all(writeFunctions) { name in
                 "SELECT pg_get_functiondef(o) LIKE '%request.jwt.claims%' AND NOT has_function_privilege('anon', o, 'EXECUTE') "
                     + "AND NOT has_function_privilege('authenticated', o, 'EXECUTE') AND has_function_privilege('service_role', o, 'EXECUTE') "
                     + "FROM (SELECT \(functionOID(name)) AS o) f"
             }),
            ("5 search_articles returns nothing for empty and over-200-character queries", """
                SELECT (SELECT count(*) FROM public.search_articles('', 20)) = 0
                   AND (SELECT count(*) FROM public.search_articles(repeat('a', 201), 20)) = 0
                """),
            ("6 articles_with_source exists without url_hash", """
                SELECT EXISTS (SELECT 1 FROM information_schema.views WHERE table_schema = 'public' AND table_name = 'articles_with_source')
                   AND NOT EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema = 'public'
                                   AND table_name = 'articles_with_source' AND column_name = 'url_hash')
                """),
            ("7 API roles read the public source columns and none of the operational ones", """
                SELECT bool_and(has_column_privilege(r, 'public.sources', c, 'SELECT') = (c = ANY (ARRAY['id', 'name', 'slug',
                         'website_url', 'logo_url', 'category_id', 'language', 'is_active'])))
                FROM unnest(ARRAY['anon', 'authenticated']) r,
                     unnest(ARRAY['id', 'name', 'slug', 'website_url', 'logo_url', 'category_id', 'language', 'is_active',
                                  'feed_url', 'last_fetched_at', 'fetch_interval_hours', 'etag', 'last_modified',
                                  'consecutive_failures', 'circuit_open_until', 'max_content_length']) c
                """),
            ("8 API roles cannot write sources, categories or articles", """
                SELECT bool_and(NOT has_table_privilege(r, t, p))
                FROM unnest(ARRAY['anon', 'authenticated']) r,
                     unnest(ARRAY['public.sources', 'public.categories', 'public.articles']) t,
                     unnest(ARRAY['INSERT', 'UPDATE', 'DELETE', 'TRUNCATE']) p
                """),
            ("9 fetch_logs and source_health are closed to the API roles", """
                SELECT bool_and(NOT has_table_privilege(r, t, 'SELECT'))
                FROM unnest(ARRAY['anon', 'authenticated']) r, unnest(ARRAY['public.fetch_logs', 'public.source_health']) t
                """),
            ("10 the views run with the caller's rights", """
                SELECT bool_and(coalesce(c.reloptions && ARRAY['security_invoker=on', 'security_invoker=true'], false)) AND count(*) = 2
                FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE n.nspname = 'public' AND c.relname IN ('articles_with_source', 'source_health')
                """),
            ("11 the maintenance RPCs are service_role only",
             "SELECT " + all(serviceOnly) { name in
                 "SELECT NOT has_function_privilege('anon', o, 'EXECUTE') AND NOT has_function_privilege('authenticated', o, 'EXECUTE') "
                     + "AND has_function_privilege('service_role', o, 'EXECUTE') FROM (SELECT \(functionOID(name)) AS o) f"
             }),
        ]
    }()

    /// Name -> (arguments with defaults, result type, SECURITY DEFINER), as upstream's clients call them.
    static let signatures: [String: (String, String?, Bool)] = [
        "search_articles": ("search_query text, result_limit integer DEFAULT 20, search_language text DEFAULT NULL::text, "
                            + "result_offset integer DEFAULT 0", nil, true),
        "cleanup_old_articles": ("days_to_keep integer DEFAULT 30", "integer", true),
        "prune_old_image_urls": ("days_to_keep integer", "bigint", true),
        "prune_old_content": ("days_to_keep integer", "bigint", true),
        "batch_update_article_images": ("updates jsonb", "integer", true),
        "batch_update_article_content": ("updates jsonb", "integer", true),
        "bump_backfill_attempts": ("url_hashes text[], kind text", "integer", true),
        "batch_update_source_fetch_state": ("updates jsonb", "integer", true),
        "get_db_size_bytes": ("", "bigint", false),
    ]

    @Test(arguments: Path.allCases)
    func securityInvariantsHold(_ path: Path) async throws {
        try await TestDatabase.with { database in
            let db = try await migrated(database, path)
            for (name, sql) in Self.invariants {
                let holds = try await db.query(sql, label: "invariant \(name)").rows.first?[0]
                #expect(holds == "t", "\(path): invariant \(name)")
            }
            await db.close()
        }
    }

    @Test(arguments: Path.allCases)
    func rpcSignaturesMatchUpstream(_ path: Path) async throws {
        try await TestDatabase.with { database in
            let db = try await migrated(database, path)
            let rows = try await db.query("""
                SELECT p.proname, pg_get_function_arguments(p.oid) AS args, pg_get_function_result(p.oid) AS result,
                       p.prosecdef, count(*) OVER (PARTITION BY p.proname) AS overloads
                FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
                WHERE n.nspname = 'public' AND p.proname = ANY ($1::text[])
                """, [PostgresArray.text(Array(Self.signatures.keys))], label: "signatures").rows
            #expect(Set(rows.compactMap { $0["proname"] }) == Set(Self.signatures.keys), "\(path)")
            for row in rows {
                let name = row["proname"] ?? ""
                guard let (args, result, definer) = Self.signatures[name] else { continue }
                #expect(row["args"] == args, "\(path): \(name) arguments")
                if let result { #expect(row["result"] == result, "\(path): \(name) result") }
                // Upstream's search_articles returns `language VARCHAR(5)`; built from empty, ours too.
                if name == "search_articles" && path == .fresh {
                    #expect(row["result"]?.contains("language character varying,") == true, "\(row["result"] ?? "")")
                }
                #expect(row.bool("prosecdef") == definer, "\(path): \(name) SECURITY DEFINER")
                #expect(row["overloads"] == "1", "\(path): \(name) must have one signature")
            }
            let index = try await db.query("""
                SELECT count(*) FILTER (WHERE indexname = 'idx_articles_search'),
                       count(*) FILTER (WHERE indexname = 'idx_articles_search_vector')
                FROM pg_indexes WHERE schemaname = 'public'
                """, label: "search index").rows.first
            #expect(index?[0] == "1" && index?[1] == "0", "\(path): the full-text index is idx_articles_search")
            let role = try await db.query("""
                SELECT r.rolcanlogin, r.rolinherit,
                       (SELECT array_agg(g.rolname ORDER BY g.rolname) FROM pg_auth_members m
                          JOIN pg_roles g ON g.oid = m.roleid WHERE m.member = r.oid)::text AS member_of
                FROM pg_roles r WHERE r.rolname = 'authenticator'
                """, label: "authenticator").rows.first
            #expect(role?["rolcanlogin"] == "f" && role?["rolinherit"] == "f", "\(path): authenticator NOLOGIN NOINHERIT")
            #expect(role?["member_of"] == "{anon,authenticated,service_role}", "\(path): authenticator's roles")
            await db.close()
        }
    }

    /// Upstream-shaped payloads (keyed by url_hash) reach the rows; source_health counts by publication.
    @Test func upstreamShapedCallsWorkOnAFreshDatabase() async throws {
        try await TestDatabase.with { database in
            let (store, sources) = try await Seed.store(database, sources: [Seed.source("a")])
            _ = try await store.insertArticles([
                ArticleCandidate(title: "Fresh", link: "https://x.example/fresh", publishedAt: Date()),
                ArticleCandidate(title: "Old news", link: "https://x.example/old", publishedAt: Date(timeIntervalSinceNow: -3 * 86_400)),
            ], source: sources["a"]!)
            let db = store.connection
            let hash = try #require(try await db.query("SELECT url_hash FROM public.articles WHERE title = 'Fresh'",
                                                       label: "hash").rows.first?[0])
            try await db.query("SELECT set_config('request.jwt.claims', '{\"role\":\"service_role\"}', false)", label: "claims")
            let images = try await db.query("SELECT public.batch_update_article_images($1::jsonb)",
                                            ["[{\"url_hash\": \"\(hash)\", \"image_url\": \"https://x.example/i.jpg\"}]"],
                                            label: "images by url_hash").rows.first?[0]
            #expect(images == "1")
            let content = try await db.query("SELECT public.batch_update_article_content($1::jsonb)",
                                             ["[{\"url_hash\": \"\(hash)\", \"content\": \"Body.\"}]"], label: "content").rows.first?[0]
            #expect(content == "1")
            let bumped = try await db.query("SELECT public.bump_backfill_attempts(ARRAY[$1], 'image')", [hash],
                                            label: "bump by url_hash").rows.first?[0]
            #expect(bumped == "1")
            #expect(try await db.query("SELECT public.cleanup_old_articles()", label: "default days").rows.first?[0] == "0")
            let health = try await db.query("SELECT articles_last_24h FROM public.source_health WHERE slug = 'a'",
                                            label: "health").rows.first?[0]
            #expect(health == "1", "the 3-day-old item was stored now but published earlier")
            await db.close()
        }
    }
}
