import FoundationEssentials
import Postgres
import Synchronization

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
    /// Opens a pass's row as `running`. The id is made here, so an INSERT re-sent after a lost
    /// reply (`withReconnect`) finds its own row instead of leaving a second one running forever.
    /// Logs left open by a pass that could not close them are closed first.
    public func openFetchLog(at now: Date = Date()) async throws -> String {
        let pending = unclosedLogs.takeAll()
        for (index, log) in pending.enumerated() {
            do { try await closeFetchLog(id: log.id, summary: log.summary, at: log.at) } catch {
                pending[(index + 1)...].forEach(unclosedLogs.add)   // the failed one re-added itself
                throw error
            }
        }
        let id = UUID().uuidString.lowercased()
        try await connection.withReconnect(label: "open fetch log") { db in
            try db.query("""
                INSERT INTO public.fetch_logs (id, started_at, status) VALUES ($1::uuid, $2::timestamptz, 'running')
                ON CONFLICT (id) DO NOTHING
                """, [id, now], label: "open fetch log")
        }
        return id
    }

    /// Records the pass's counts. When the database cannot be reached, the summary is kept and
    /// written by the next `openFetchLog`, so no row stays `running` once the database is back.
    public func closeFetchLog(id: String, summary: FetchLogSummary, at now: Date = Date()) async throws {
        let errors = String(decoding: try JSONEncoder().encode(summary.errors), as: UTF8.self)
        do {
            try await connection.withReconnect(label: "close fetch log") { db in
                try db.query("""
                    UPDATE public.fetch_logs SET completed_at = $2::timestamptz, sources_processed = $3,
                        articles_fetched = $4, articles_inserted = $5, articles_skipped = $6,
                        errors = $7::jsonb, status = $8
                    WHERE id = $1::uuid
                    """, [id, now, summary.sourcesProcessed, summary.articlesFetched, summary.articlesInserted,
                          summary.articlesSkipped, errors, summary.status], label: "close fetch log")
            }
        } catch {
            unclosedLogs.add(.init(id: id, summary: summary, at: now))
            throw error
        }
    }
}

/// Shared by every copy of one store (it is a value type holding its sessions).
final class UnclosedLogs: Sendable {
    struct Entry: Sendable {
        var id: String
        var summary: FetchLogSummary
        var at: Date
    }

    private let entries = Mutex<[Entry]>([])
    func add(_ entry: Entry) { entries.withLock { $0.append(entry) } }
    func takeAll() -> [Entry] { entries.withLock { list in defer { list = [] }; return list } }
}
