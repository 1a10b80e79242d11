import Migrations
import Postgres
import TestSupport
import Testing

@Suite(.tags(.integration), .needsDatabase)
struct MigrationTests {
    let logger = TestDatabase.logger

    @Test func emptyDatabaseGetsTheWholeSchema() async throws {
        try await TestDatabase.with { database in
            let db = try await database.connect(serviceRole: false)
            let report = try await Migrator(logger: logger).migrate(on: db)
            #expect(report.applied == Array(1...15))
            #expect(report.adopted.isEmpty)

            let relations = try await db.query("""
                SELECT c.relname, c.relkind::text, c.relrowsecurity FROM pg_class c
                JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE n.nspname = 'public' AND c.relkind IN ('r', 'v') ORDER BY 1
                """, label: "relations").rows.map { "\($0[0]!):\($0[1]!):\($0[2]!)" }
            #expect(relations == ["articles:r:t", "articles_with_source:v:f", "categories:r:t",
                                  "fetch_logs:r:t", "fleet_gauges:r:t", "source_health:v:f", "source_totals:r:t",
                                  "sources:r:t", "websub_subscriptions:r:t"])

            let categories = try await db.query("SELECT slug FROM public.categories ORDER BY display_order",
                                                label: "categories").rows.map { $0[0]! }
            #expect(categories == ["world", "technology", "business", "sports", "entertainment", "science",
                                   "health", "politics", "podcasts", "videos"])

            let functions = try await db.query("""
                SELECT p.proname, p.prosecdef, array_to_string(p.proconfig, ',') FROM pg_proc p
                JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'public' ORDER BY 1
                """, label: "functions").rows
            #expect(functions.count == 9)
            for function in functions {
                // get_db_size_bytes runs with the caller's rights, as upstream's does.
                #expect(function[1] == (function[0] == "get_db_size_bytes" ? "f" : "t"),
                        "\(function[0]!): SECURITY DEFINER except get_db_size_bytes")
                #expect(function[2]?.hasPrefix("search_path=\"\"") == true, "\(function[0]!) must pin an empty search_path")
            }

            let policies = try await db.query("SELECT tablename || ':' || cmd FROM pg_policies ORDER BY 1",
                                              label: "policies").rows.map { $0[0]! }
            #expect(policies == ["articles:SELECT", "categories:SELECT", "sources:SELECT"])

            let roles = try await db.query("""
                SELECT rolname, rolcanlogin, rolbypassrls FROM pg_roles
                WHERE rolname IN ('anon', 'authenticated', 'service_role') ORDER BY 1
                """, label: "roles").rows.map { "\($0[0]!):\($0[1]!):\($0[2]!)" }
            #expect(roles == ["anon:f:f", "authenticated:f:f", "service_role:f:t"])

            let compression = try await db.query("""
                SELECT attcompression::text FROM pg_attribute
                WHERE attrelid = 'public.articles'::regclass AND attname = 'content'
                """, label: "compression").rows.first?[0]
            #expect(compression == "l")

            let indexes = try await db.query(
                "SELECT count(*) FROM pg_indexes WHERE schemaname = 'public' AND tablename = 'articles'",
                label: "indexes").rows.first?.int("count")
            // Primary key, url_hash unique, the eight of the contract, our category index and the
            // per-language search index (an empty table gets it at once).
            #expect(indexes == 12)
            await db.close()
        }
    }

    @Test func migratingTwiceIsANoOp() async throws {
        try await TestDatabase.with { database in
            let db = try await database.connect(serviceRole: false)
            _ = try await Migrator(logger: logger).migrate(on: db)
            let snapshot = try await Self.catalogSnapshot(db)
            let second = try await Migrator(logger: logger).migrate(on: db)
            #expect(!second.changedAnything)
            #expect(second.alreadyDone == Array(1...15))
            #expect(try await Self.catalogSnapshot(db) == snapshot)
            #expect(try await Migrator(logger: logger).pending(on: db).isEmpty)
            await db.close()
        }
    }

    @Test func concurrentMigrationsOneWaitsBothSucceed() async throws {
        try await TestDatabase.with { database in
            let first = try await database.connect(serviceRole: false)
            let second = try await database.connect(serviceRole: false)
            async let a = Migrator(logger: logger).migrate(on: first)
            async let b = Migrator(logger: logger).migrate(on: second)
            let reports = try await [a, b]
            // Exactly one of them did the work; the other found it done after waiting for the lock.
            #expect(reports.map(\.applied).sorted { $0.count < $1.count } == [[], Array(1...15)])
            let history = try await first.query(
                "SELECT version FROM pulse_ingest.schema_migrations ORDER BY version", label: "history")
            #expect(history.rows.map { $0[0]! } == (1...15).map(String.init))
            await first.close()
            await second.close()
        }
    }

    @Test func backendSchemaIsAdoptedWithoutLoss() async throws {
        try await TestDatabase.with { database in
            let db = try await database.connect(serviceRole: false)
            try await db.executeScript(try fixture("backend-schema.sql"), label: "backend fixture")
            let before = try await Self.rowCounts(db)
            #expect(before == ["articles": 3, "categories": 10, "fetch_logs": 1, "sources": 2])

            let report = try await Migrator(logger: logger).migrate(on: db)
            #expect(report.adopted == [1, 2, 6, 8])
            #expect(report.applied == [3, 4, 5, 7] + Array(9...15))
            #expect(try await Self.rowCounts(db) == before)

            // The backend's own function body is untouched (we create nothing that is there).
            let body = try await db.query(
                "SELECT prosrc FROM pg_proc WHERE proname = 'get_db_size_bytes'", label: "function body")
            #expect(body.rows.first?[0]?.contains("backend fixture") == true)
            // Our additive index and checks exist.
            let added = try await db.query("""
                SELECT (SELECT count(*) FROM pg_indexes WHERE indexname = 'idx_articles_language_category_published'),
                       (SELECT count(*) FROM pg_constraint WHERE conname = 'articles_language_iso639_1'),
                       (SELECT count(*) FROM public.sources WHERE language_detection)
                """, label: "additions").rows.first
            #expect(added?[0] == "1" && added?[1] == "1")
            // The backend's sources detect languages, as they did before the column.
            #expect(added?[2] == "2")
            let again = try await Migrator(logger: logger).migrate(on: db)
            #expect(!again.changedAnything)
            await db.close()
        }
    }

    @Test func partialSchemaIsRefusedWithTheMissingNames() async throws {
        try await TestDatabase.with { database in
            let db = try await database.connect(serviceRole: false)
            try await db.executeScript("CREATE TABLE public.articles (id uuid PRIMARY KEY)", label: "partial")
            do {
                _ = try await Migrator(logger: logger).migrate(on: db)
                Issue.record("a partial schema must be refused")
            } catch let error as PostgresError {
                #expect(error.description.contains("holds part of the Pulse schema (articles)"))
                #expect(error.description.contains("categories"))
            }
            await db.close()
        }
    }

    static func rowCounts(_ db: PostgresConnection) async throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for table in ["articles", "categories", "fetch_logs", "sources"] {
            counts[table] = try await db.query("SELECT count(*) FROM public.\(table)", label: "count").rows.first?.int("count")
        }
        return counts
    }

    /// Objects and privileges that a repeated migration must leave as they are.
    static func catalogSnapshot(_ db: PostgresConnection) async throws -> [String] {
        try await db.query("""
            SELECT 'rel ' || c.relname || ' ' || coalesce(array_to_string(c.relacl, ','), '') FROM pg_class c
              JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public'
            UNION ALL SELECT 'fn ' || p.proname || ' ' || md5(p.prosrc) FROM pg_proc p
              JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'public'
            UNION ALL SELECT 'pol ' || policyname FROM pg_policies
            UNION ALL SELECT 'con ' || conname FROM pg_constraint c
              JOIN pg_namespace n ON n.oid = c.connamespace WHERE n.nspname = 'public'
            ORDER BY 1
            """, label: "catalog snapshot").rows.map { $0[0] ?? "" }
    }
}
