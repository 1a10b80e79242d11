import FoundationEssentials
import Glibc
import Postgres

/// One source's health as `--status` shows it.
public struct SourceStatus: Sendable, Equatable {
    public var slug: String
    public var name: String
    public var isActive: Bool
    /// `last_fetched_at`: stamped by successful fetches only (200 or 304).
    public var lastSuccessAt: Date?
    /// The newest failure recorded for it in the last week of `fetch_logs`, and when.
    public var lastError: String?
    public var lastErrorAt: Date?
    public var consecutiveFailures: Int
    /// Set while the circuit breaker keeps the source out of passes.
    public var circuitOpenUntil: Date?
    /// When it is next fetched (never before the circuit closes); nil for inactive sources.
    public var nextDueAt: Date?
    /// Rows stored for it in the last 24 hours.
    public var itemsLast24Hours: Int
    /// The worker holding a live lease on it, if any.
    public var leasedBy: String?
    /// Its WebSub subscription: state (`expired` for a lapsed lease), hub, and lease end.
    public var websubState: String? = nil
    public var websubHub: String? = nil
    public var websubLeaseUntil: Date? = nil

    public func circuitIsOpen(at now: Date) -> Bool { circuitOpenUntil.map { $0 > now } ?? false }
}

extension ArticleStore {
    /// How far back `--status` looks for a source's last error.
    public static let statusErrorWindowDays = 7
    /// Rows per FETCH when statuses are streamed.
    public static let statusBatchRows = 500

    /// Every source (or the `limit` worst), worst first: active before inactive, then open
    /// circuits, most consecutive failures, and the longest since a success (never first). Handed
    /// to `body` a batch at a time as they are read: through a cursor that lives in one
    /// transaction (so it works through a transaction-mode pooler), `statusBatchRows` rows per
    /// FETCH, so no more than one batch is ever in memory (the whole table at 1,000,000 sources
    /// was 25 s and all of it held at once). `body` runs on the connection's thread. Not retried
    /// on a lost connection: rows already handed on would be handed on twice.
    public func streamSourceStatuses(at now: Date = Date(), limit: Int? = nil,
                                     _ body: @escaping @Sendable ([SourceStatus]) throws -> Void) async throws {
        let sql = limit == nil ? Self.everySourceStatusSQL : Self.worstSourceStatusSQL
        var parameters: [any PostgresEncodable] = [now, Self.statusErrorWindowDays]
        if let limit { parameters.append(limit) }
        let declared = parameters
        if !(await connection.isConnected) { try await connection.reconnect(maximumAttempts: 3) }
        try await connection.withTransaction(label: "source status") { db in
            try db.query("DECLARE source_status NO SCROLL CURSOR FOR " + sql, declared, label: "source status")
            while true {
                let rows = try db.query("FETCH \(Self.statusBatchRows) FROM source_status", label: "source status").rows
                if rows.isEmpty { break }
                try body(rows.map(SourceStatus.init(row:)))
                if rows.count < Self.statusBatchRows { break }
            }
            try db.query("CLOSE source_status", label: "source status")
        }
    }

    /// The worst first: active first, then open circuits, failures in a row, the longest since a
    /// success (never first). `$1` is now.
    private static let statusOrder = """
        coalesce(s.is_active, false) DESC, coalesce(s.circuit_open_until > $1::timestamptz, false) DESC,
        s.consecutive_failures DESC, s.last_fetched_at ASC NULLS FIRST, s.slug
        """

    /// Last errors (lines "slug: message" of the fetch_logs of the last `$2` days), newest per
    /// slug; only for the slugs of `chosen` (a relation with a `slug` column) when given.
    private static func lastErrors(of chosen: String?) -> String {
        """
        SELECT DISTINCT ON (split_part(e.line, ': ', 1))
               split_part(e.line, ': ', 1) AS slug,
               substr(e.line, length(split_part(e.line, ': ', 1)) + 3) AS message,
               coalesce(f.completed_at, f.started_at) AS at
        FROM public.fetch_logs f
        CROSS JOIN LATERAL jsonb_array_elements_text(
            CASE WHEN jsonb_typeof(f.errors) = 'array' THEN f.errors ELSE '[]'::jsonb END) AS e(line)
        WHERE f.started_at > $1::timestamptz - make_interval(days => $2)
          \(chosen.map { "AND split_part(e.line, ': ', 1) IN (SELECT slug FROM \($0))" } ?? "")
        ORDER BY split_part(e.line, ': ', 1), coalesce(f.completed_at, f.started_at) DESC
        """
    }

    private static let statusColumns = """
        s.slug, s.name, coalesce(s.is_active, false) AS active, s.last_fetched_at,
        s.consecutive_failures, s.circuit_open_until,
        CASE WHEN s.is_active THEN greatest(
            coalesce(s.next_due_at, s.last_fetched_at + make_interval(hours => s.fetch_interval_hours),
                     $1::timestamptz),
            coalesce(s.circuit_open_until, '-infinity')) END AS next_due,
        e.message AS last_error, e.at AS last_error_at,
        CASE WHEN s.lease_until > $1::timestamptz THEN s.claimed_by END AS leased_by,
        CASE WHEN w.state = 'subscribed' AND w.lease_expires_at <= $1::timestamptz THEN 'expired'
             ELSE w.state END AS websub_state, w.hub AS websub_hub, w.lease_expires_at AS websub_lease
        """

    /// The `$3` worst, chosen without sorting `sources`: the active ones with an open circuit
    /// (their partial index), then the other active ones in `idx_sources_status`'s order (the
    /// first `$3` entries), then, only when those are too few, the inactive ones; then only the
    /// chosen sources' articles and errors are read (the last day's items by the articles'
    /// source index, per source).
    private static let worstSourceStatusSQL = """
        WITH open_circuits AS MATERIALIZED (
            SELECT s.id FROM public.sources s
            WHERE s.is_active AND s.circuit_open_until > $1::timestamptz
            ORDER BY s.consecutive_failures DESC, s.last_fetched_at ASC NULLS FIRST, s.slug LIMIT $3
        ), closed AS MATERIALIZED (
            SELECT s.id FROM public.sources s
            WHERE s.is_active AND (s.circuit_open_until IS NULL OR s.circuit_open_until <= $1::timestamptz)
            ORDER BY s.consecutive_failures DESC, s.last_fetched_at ASC NULLS FIRST, s.slug LIMIT $3
        ), inactive AS MATERIALIZED (
            SELECT s.id FROM public.sources s WHERE s.is_active IS NOT TRUE
            ORDER BY \(statusOrder)
            LIMIT greatest(0, $3 - (SELECT count(*) FROM open_circuits) - (SELECT count(*) FROM closed))
        ), chosen AS MATERIALIZED (
            SELECT s.* FROM public.sources s
            WHERE s.id IN (SELECT id FROM open_circuits UNION ALL SELECT id FROM closed UNION ALL SELECT id FROM inactive)
            ORDER BY \(statusOrder) LIMIT $3
        ), errors AS (\(lastErrors(of: "chosen")))
        SELECT \(statusColumns),
               (SELECT count(*) FROM public.articles a
                WHERE a.source_id = s.id AND a.created_at > $1::timestamptz - interval '24 hours') AS recent
        FROM chosen s
        LEFT JOIN public.websub_subscriptions w ON w.source_id = s.id
        LEFT JOIN errors e ON e.slug = s.slug
        ORDER BY \(statusOrder)
        """

    /// Every source: the last day's items counted once for all, grouped.
    private static let everySourceStatusSQL = """
        WITH errors AS (\(lastErrors(of: nil))), items AS (
            SELECT source_id, count(*) AS recent FROM public.articles
            WHERE created_at > $1::timestamptz - interval '24 hours'
            GROUP BY source_id
        )
        SELECT \(statusColumns), coalesce(i.recent, 0) AS recent
        FROM public.sources s
        LEFT JOIN public.websub_subscriptions w ON w.source_id = s.id
        LEFT JOIN items i ON i.source_id = s.id
        LEFT JOIN errors e ON e.slug = s.slug
        ORDER BY \(statusOrder)
        """
}

extension SourceStatus {
    init(row: QueryResult.Row) {
        self.init(slug: row["slug"] ?? "", name: row["name"] ?? "", isActive: row["active"] == "t",
                  lastSuccessAt: row.date("last_fetched_at"),
                  lastError: row["last_error"],
                  lastErrorAt: row.date("last_error_at"),
                  consecutiveFailures: row.int("consecutive_failures") ?? 0,
                  circuitOpenUntil: row.date("circuit_open_until"),
                  nextDueAt: row.date("next_due"),
                  itemsLast24Hours: row.int("recent") ?? 0,
                  leasedBy: row["leased_by"], websubState: row["websub_state"], websubHub: row["websub_hub"],
                  websubLeaseUntil: row.date("websub_lease"))
    }
}
