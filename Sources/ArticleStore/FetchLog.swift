import FoundationEssentials
import Postgres

/// One `fetch_logs` row per pass: opened as `running`, closed with counts and a status.
public struct FetchLogSummary: Sendable, Equatable {
    public var sourcesProcessed = 0
    public var articlesFetched = 0
    public var articlesInserted = 0
    public var articlesSkipped = 0
    /// One line per failed source ("slug: message").
    public var errors: [String] = []
    public var sourcesFailed = 0

    public init() {}

    /// completed / partial_failure (some sources failed) / failed (all failed).
    public var status: String {
        if sourcesFailed == 0 { return "completed" }
        return sourcesFailed >= sourcesProcessed ? "failed" : "partial_failure"
    }
}

extension ArticleStore {
    public func openFetchLog(at now: Date = Date()) async throws -> String {
        try await connection.withReconnect(label: "open fetch log") { db in
            try db.query("INSERT INTO public.fetch_logs (started_at, status) VALUES ($1::timestamptz, 'running') RETURNING id",
                         [now], label: "open fetch log").rows.first?["id"] ?? ""
        }
    }

    public func closeFetchLog(id: String, summary: FetchLogSummary, at now: Date = Date()) async throws {
        let errors = String(decoding: try JSONEncoder().encode(summary.errors), as: UTF8.self)
        try await connection.withReconnect(label: "close fetch log") { db in
            try db.query("""
                UPDATE public.fetch_logs SET completed_at = $2::timestamptz, sources_processed = $3,
                    articles_fetched = $4, articles_inserted = $5, articles_skipped = $6,
                    errors = $7::jsonb, status = $8
                WHERE id = $1::uuid
                """, [id, now, summary.sourcesProcessed, summary.articlesFetched, summary.articlesInserted,
                      summary.articlesSkipped, errors, summary.status], label: "close fetch log")
        }
    }
}
