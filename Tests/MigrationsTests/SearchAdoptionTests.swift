import ArticleStore
import Foundation
import Migrations
import Postgres
import TestSupport
import Testing

/// Migration 14 on a database the backend's migrations built, with rows: search answers the old way
/// until `--backfill --kind search` has filled every row and built the index, while a writer keeps
/// inserting and changing rows. No write may wait on a lock for more than a second: the writer's
/// lock_timeout is 1 s, so any such wait fails its statement and is counted.
@Suite(.tags(.integration), .needsDatabase)
struct SearchAdoptionTests {
    static let seededRows = 6_000
    /// The seeded rows and the fixture's own three.
    static let storedRows = seededRows + 3

    /// The backend's schema with `seededRows` rows in three languages, adopted by `--migrate`.
    static func adoptedDatabase(_ database: TestDatabase) async throws -> PostgresConnection {
        let admin = try await database.connect(serviceRole: false)
        try await admin.executeScript(try fixture("backend-schema.sql"), label: "backend fixture")
        try await admin.query("""
            INSERT INTO public.articles (title, summary, url, url_hash, published_at, language)
            SELECT CASE n % 3 WHEN 0 THEN 'Story ' || n || ': eleições municipais'
                              WHEN 1 THEN 'Story ' || n || ': las ciudades votaron'
                              ELSE 'Story ' || n || ': councils elected' END,
                   'Summary ' || n, 'https://seed.example/' || n, 'seed-' || n, now() - n * interval '1 minute',
                   (ARRAY['pt', 'es', 'en'])[n % 3 + 1]
            FROM generate_series(1, $1::int) n
            """, [seededRows], label: "seed rows")
        _ = try await Migrator(logger: TestDatabase.logger).migrate(on: admin)
        return admin
    }

    struct WriterTally: Sendable { var writes = 0, lockTimeouts = 0, errors: [String] = [] }
    struct ReaderTally: Sendable { var searches = 0, empty = 0, errors: [String] = [] }

    /// Inserts a row, changes one row's language and another's image, until cancelled.
    static func write(_ database: TestDatabase, started: AsyncStream<Void>.Continuation) async throws -> WriterTally {
        defer { started.finish() }
        var settings = database.settings()
        settings.lockTimeoutMilliseconds = 1_000
        let db = try await PostgresConnection.connect(settings: settings, logger: TestDatabase.logger)
        var tally = WriterTally()
        var n = 0
        while !Task.isCancelled {
            n += 1
            let statements: [(String, [any PostgresEncodable])] = [
                ("""
                 INSERT INTO public.articles (title, summary, url, url_hash, published_at, language)
                 VALUES ('Story new ' || $1::text || ': eleições', 'Written during the fill', 'https://w.example/' || $1::text,
                         'writer-' || $1::text, now(), 'pt')
                 """, [n]),
                ("UPDATE public.articles SET language = CASE language WHEN 'pt' THEN 'es' ELSE 'pt' END WHERE url_hash = $1",
                 ["seed-\(n * 7 % seededRows + 1)"]),
                ("UPDATE public.articles SET image_url = 'https://img.example/' || $1::text WHERE url_hash = $2",
                 [n, "seed-\(n * 13 % seededRows + 1)"]),
            ]
            for (sql, parameters) in statements {
                do {
                    try await db.query(sql, parameters, label: "writer")
                    tally.writes += 1
                    if tally.writes == 3 { started.yield(); started.finish() }
                } catch let error as PostgresError where error.sqlState == "55P03" {
                    tally.lockTimeouts += 1
                } catch {
                    tally.errors.append("\(error)")
                }
            }
        }
        await db.close()
        return tally
    }

    /// Searches for a word every row holds, until cancelled.
    static func read(_ database: TestDatabase, started: AsyncStream<Void>.Continuation) async throws -> ReaderTally {
        defer { started.finish() }
        let db = try await database.connect()
        var tally = ReaderTally()
        while !Task.isCancelled {
            do {
                let rows = try await db.query("SELECT title FROM public.search_articles('story', 20)", label: "reader").rows
                tally.searches += 1
                if tally.searches == 1 { started.yield(); started.finish() }
                if rows.isEmpty { tally.empty += 1 }
            } catch {
                tally.errors.append("\(error)")
            }
        }
        await db.close()
        return tally
    }

    @Test func searchWorksBeforeTheSwitchAndAfterTheFill() async throws {
        try await TestDatabase.with { database in
            let db = try await Self.adoptedDatabase(database)
            let state = try await db.query("SELECT ready FROM pulse_ingest.search_state", label: "state").rows.first
            #expect(state?.bool("ready") == false, "rows were present: the switch waits for the fill")
            // As today: the english vector, so English inflection works and Portuguese does not yet.
            #expect(try await db.query("SELECT count(*) AS n FROM public.search_articles('elect', 100)",
                                       label: "before").rows.first?.int("n") == 100)
            #expect(try await db.query("SELECT count(*) AS n FROM public.search_articles('eleição', 100, 'pt')",
                                       label: "before").rows.first?.int("n") == 0)
            let summary = try await SearchBackfill(connection: db, batchSize: 1_000, logger: TestDatabase.logger).run()
            #expect(summary.filled == Self.storedRows && summary.switchedOver && summary.builtIndex, "\(summary)")
            #expect(try await db.query("SELECT count(*) AS n FROM public.search_articles('eleição', 100, 'pt')",
                                       label: "after").rows.first?.int("n") == 100)
            // Run again: nothing to do.
            let again = try await SearchBackfill(connection: db, logger: TestDatabase.logger).run()
            #expect(again.filled == 0 && again.switchedOver && !again.builtIndex)
            await db.close()
        }
    }

    @Test func aStoppedFillResumesAndAnInvalidIndexIsRebuilt() async throws {
        try await TestDatabase.with { database in
            let db = try await Self.adoptedDatabase(database)
            let first = try await SearchBackfill(connection: db, batchSize: 500, logger: TestDatabase.logger)
                .run(shouldStop: { true })
            #expect(first.stopped && !first.switchedOver)
            // One batch by hand, then an invalid index as an interrupted CONCURRENTLY build leaves one.
            _ = try await db.query("SELECT * FROM pulse_ingest.search_backfill_batch(500)", label: "one batch")
            try await db.runOutsideTransaction(
                "CREATE INDEX idx_articles_search_lang ON public.articles USING gin (search_vector_lang)", label: "index")
            try await db.query("UPDATE pg_index SET indisvalid = false WHERE indexrelid = 'public.idx_articles_search_lang'::regclass",
                               label: "invalidate")
            let rest = try await SearchBackfill(connection: db, batchSize: 500, logger: TestDatabase.logger).run()
            #expect(rest.filled == Self.storedRows - 500 && rest.builtIndex && rest.switchedOver, "\(rest)")
            let valid = try await db.query("""
                SELECT i.indisvalid FROM pg_index i WHERE i.indexrelid = 'public.idx_articles_search_lang'::regclass
                """, label: "index state").rows.first?.bool("indisvalid")
            #expect(valid == true)
            await db.close()
        }
    }

    @Test func aWriterNeverWaitsASecondAndSearchAnswersThroughout() async throws {
        try await TestDatabase.with { database in
            let admin = try await Self.adoptedDatabase(database)
            await admin.close()
            let (writerStarted, writerSignal) = AsyncStream<Void>.makeStream()
            let (readerStarted, readerSignal) = AsyncStream<Void>.makeStream()
            let writer = Task { try await Self.write(database, started: writerSignal) }
            let reader = Task { try await Self.read(database, started: readerSignal) }
            // Both are at work before the fill starts (or have failed: then the stream ends empty).
            for await _ in writerStarted {}
            for await _ in readerStarted {}
            // The fill as the operator runs it: as service_role, small batches, the index built concurrently.
            let db = try await database.connect()
            let summary: SearchBackfillSummary
            do {
                summary = try await SearchBackfill(connection: db, batchSize: 200, logger: TestDatabase.logger).run()
            } catch {
                writer.cancel(); reader.cancel()
                throw error
            }
            writer.cancel()
            reader.cancel()
            let writes = try await writer.value
            let reads = try await reader.value
            TestDatabase.logger.info("adoption under load", metadata: [
                "writes": "\(writes.writes)", "lock_timeouts": "\(writes.lockTimeouts)", "searches": "\(reads.searches)",
            ])
            #expect(summary.switchedOver && summary.builtIndex, "\(summary)")
            #expect(writes.writes > 0 && writes.lockTimeouts == 0 && writes.errors.isEmpty, "\(writes)")
            #expect(reads.searches > 0 && reads.empty == 0 && reads.errors.isEmpty, "\(reads)")

            let check = try await db.query("""
                SELECT count(*) FILTER (WHERE search_vector_lang IS NULL) AS missing,
                       count(*) FILTER (WHERE search_vector_lang IS DISTINCT FROM
                                        pulse_ingest.search_document(language, title, summary)) AS stale,
                       count(*) FILTER (WHERE url_hash LIKE 'writer-%') AS written
                FROM public.articles
                """, label: "vectors").rows.first
            #expect(check?.int("missing") == 0 && check?.int("stale") == 0, "every row, old, new and changed, has its vector")
            #expect(check?.int("written") ?? 0 > 0)
            await db.close()
        }
    }
}
