import Logging
import Postgres

/// What one `--backfill --kind search` run did.
public struct SearchBackfillSummary: Sendable, Equatable {
    /// Rows the batches looked at and filled in this run.
    public var scanned = 0
    public var filled = 0
    /// The index was built in this run.
    public var builtIndex = false
    /// search_articles uses the new vectors (now or already before this run).
    public var switchedOver = false
    /// The run was asked to stop before it finished; a later run resumes from the saved cursor.
    public var stopped = false

    public var line: String {
        if stopped { return "search backfill stopped: \(filled) rows filled of \(scanned) looked at; run it again to resume" }
        return "search backfill: \(filled) rows filled of \(scanned) looked at"
            + (builtIndex ? ", index built" : "") + (switchedOver ? "; search_articles uses the per-language index" : "")
    }
}

/// Fills `articles.search_vector_lang` on a table that had rows when migration 14 ran, builds its
/// index without blocking writes, then switches search_articles over (see migration 14). Every
/// step is one short statement of its own, so it works through a transaction-mode pooler, holds
/// row locks for one batch at a time, and resumes where a stopped run left off.
public struct SearchBackfill: Sendable {
    public static let indexName = "idx_articles_search_lang"
    let connection: PostgresConnection
    let batchSize: Int
    let logger: Logger

    public init(connection: PostgresConnection, batchSize: Int = 2_000, logger: Logger) {
        self.connection = connection
        self.batchSize = batchSize
        self.logger = logger
    }

    public func run(shouldStop: @escaping @Sendable () -> Bool = { false }) async throws -> SearchBackfillSummary {
        var summary = SearchBackfillSummary()
        let state = try await connection.withReconnect(label: "search state") { db in
            try db.query("SELECT ready, filled FROM pulse_ingest.search_state", label: "search state").rows.first
        }
        guard let state else {
            throw PostgresError(kind: .client, statement: "search backfill",
                                message: "pulse_ingest.search_state has no row: run --migrate first")
        }
        if state.bool("ready") == true {
            summary.switchedOver = true
            logger.info("search backfill: nothing to do, search_articles already uses the per-language index")
            return summary
        }
        try await fillInBatches(&summary, shouldStop: shouldStop)
        if summary.stopped { return summary }
        // The index, then the switch; rows written meanwhile got their vector from the trigger, so a
        // second round is only for a row someone cleared by hand.
        for _ in 0..<3 {
            try await fillRemaining(&summary)
            summary.builtIndex = try await buildIndex() || summary.builtIndex
            let switched = try await connection.withReconnect(label: "search switch") { db in
                try db.query("SELECT pulse_ingest.search_switch_over()", label: "search switch").rows.first?[0] == "t"
            }
            if switched {
                summary.switchedOver = true
                logger.info("search backfill: search_articles now uses the per-language index")
                return summary
            }
        }
        throw PostgresError(kind: .client, statement: "search switch",
                            message: "rows without a search vector keep appearing, or \(Self.indexName) is not valid; search stays on the english index")
    }

    /// The pass by id from the saved cursor, logging progress about every 10 seconds.
    private func fillInBatches(_ summary: inout SearchBackfillSummary, shouldStop: @Sendable () -> Bool) async throws {
        let estimate = try await connection.withReconnect(label: "search estimate") { db in
            try db.query("SELECT greatest(reltuples, 0)::bigint AS rows FROM pg_catalog.pg_class WHERE oid = 'public.articles'::regclass",
                         label: "search estimate").rows.first?.int("rows") ?? 0
        }
        let started = ContinuousClock.now
        var lastLog = started
        let size = batchSize
        while true {
            if shouldStop() { summary.stopped = true; break }
            let row = try await connection.withReconnect(label: "search backfill batch") { db in
                try db.query("SELECT scanned_rows, filled_rows FROM pulse_ingest.search_backfill_batch($1)", [size],
                             label: "search backfill batch").rows.first
            }
            let scanned = row?.int("scanned_rows") ?? 0
            summary.scanned += scanned
            summary.filled += row?.int("filled_rows") ?? 0
            if scanned == 0 { break }
            if ContinuousClock.now - lastLog >= .seconds(10) {
                lastLog = ContinuousClock.now
                let seconds = Double((lastLog - started).components.seconds) + 0.001
                logger.info("search backfill progress", metadata: [
                    "scanned": "\(summary.scanned)", "filled": "\(summary.filled)", "of_about": "\(estimate)",
                    "rows_per_second": "\(Int(Double(summary.scanned) / seconds))",
                ])
            }
        }
        logger.info("search backfill pass done", metadata: ["scanned": "\(summary.scanned)", "filled": "\(summary.filled)"])
    }

    private func fillRemaining(_ summary: inout SearchBackfillSummary) async throws {
        let size = batchSize
        while true {
            let filled = try await connection.withReconnect(label: "search backfill rest") { db in
                try db.query("SELECT pulse_ingest.search_backfill_rest($1) AS filled", [size],
                             label: "search backfill rest").rows.first?.int("filled") ?? 0
            }
            summary.filled += filled
            if filled == 0 { return }
        }
    }

    /// CREATE INDEX CONCURRENTLY, alone and outside any transaction (it cannot run inside one; as
    /// one statement it keeps one pooled server connection to itself until it ends). An invalid
    /// index a failed earlier build left is dropped first. Says whether it built one.
    private func buildIndex() async throws -> Bool {
        let index = "public.\(Self.indexName)"
        let valid = try await connection.withReconnect(label: "search index state") { db in
            try db.query("SELECT i.indisvalid FROM pg_catalog.pg_index i WHERE i.indexrelid = pg_catalog.to_regclass($1)",
                         [index], label: "search index state").rows.first?.bool("indisvalid")
        }
        if valid == true { return false }
        if valid == false {
            logger.warning("search backfill: dropping the invalid index an interrupted build left", metadata: ["index": "\(index)"])
            try await connection.runOutsideTransaction("DROP INDEX CONCURRENTLY IF EXISTS \(index)", label: "drop invalid search index")
        }
        logger.info("search backfill: building the index concurrently (writes go on)", metadata: ["index": "\(index)"])
        let started = ContinuousClock.now
        try await connection.runOutsideTransaction(
            "CREATE INDEX CONCURRENTLY IF NOT EXISTS \(Self.indexName) ON public.articles USING gin (search_vector_lang)",
            label: "build search index")
        logger.info("search backfill: index built", metadata: ["seconds": "\((ContinuousClock.now - started).components.seconds)"])
        return true
    }
}
