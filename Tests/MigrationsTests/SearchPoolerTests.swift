import ArticleStore
import Postgres
import TestSupport
import Testing

/// `--backfill --kind search` through a transaction-mode pooler (pgbouncer, as Supabase's 6543):
/// every batch is a transaction of its own and CREATE INDEX CONCURRENTLY one statement outside
/// any, so the fill, the concurrent index and the switch all work there.
@Suite(.tags(.integration), .needsDatabase, .needsPooler)
struct SearchPoolerTests {
    @Test func theFillBuildsTheIndexAndSwitchesThroughThePooler() async throws {
        let pooler = try TestDatabase.environmentURL("PULSE_TEST_POOLER_URL", startedBy: "a transaction-mode pgbouncer (.ci/local-pgbouncer)")
        try await TestDatabase.with { database in
            let admin = try await SearchAdoptionTests.adoptedDatabase(database)
            var settings = database.settings()
            settings.conninfo = TestDatabase.replacingDatabase(in: pooler, with: database.name)
            let pooled = try await PostgresConnection.connect(settings: settings, logger: TestDatabase.logger)
            let summary = try await SearchBackfill(connection: pooled, batchSize: 700, logger: TestDatabase.logger).run()
            #expect(summary.filled == SearchAdoptionTests.storedRows && summary.builtIndex && summary.switchedOver, "\(summary)")
            let state = try await admin.query("""
                SELECT (SELECT ready FROM pulse_ingest.search_state) AS ready,
                       (SELECT indisvalid FROM pg_index WHERE indexrelid = 'public.idx_articles_search_lang'::regclass) AS valid
                """, label: "state").rows.first
            #expect(state?.bool("ready") == true && state?.bool("valid") == true)
            let found = try await pooled.query("SELECT count(*) AS n FROM public.search_articles('eleicao', 100, 'pt')",
                                               label: "search").rows.first?.int("n")
            #expect(found == 100)
            await pooled.close()
            await admin.close()
        }
    }
}
