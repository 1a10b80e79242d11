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

    /// Every source, worst first: active before inactive, then open circuits, most consecutive
    /// failures, and the longest since a success (never first).
    public func sourceStatuses(at now: Date = Date()) async throws -> [SourceStatus] {
        try await connection.withReconnect(label: "source status") { db in
            try db.query("""
                WITH errors AS (
                    SELECT DISTINCT ON (split_part(e.line, ': ', 1))
                           split_part(e.line, ': ', 1) AS slug,
                           substr(e.line, length(split_part(e.line, ': ', 1)) + 3) AS message,
                           coalesce(f.completed_at, f.started_at) AS at
                    FROM public.fetch_logs f
                    CROSS JOIN LATERAL jsonb_array_elements_text(
                        CASE WHEN jsonb_typeof(f.errors) = 'array' THEN f.errors ELSE '[]'::jsonb END) AS e(line)
                    WHERE f.started_at > $1::timestamptz - make_interval(days => $2)
                    ORDER BY split_part(e.line, ': ', 1), coalesce(f.completed_at, f.started_at) DESC
                ), items AS (
                    SELECT source_id, count(*) AS recent FROM public.articles
                    WHERE created_at > $1::timestamptz - interval '24 hours'
                    GROUP BY source_id
                )
                SELECT s.slug, s.name, coalesce(s.is_active, false) AS active, s.last_fetched_at,
                       s.consecutive_failures, s.circuit_open_until,
                       CASE WHEN s.is_active THEN greatest(
                           coalesce(s.next_due_at, s.last_fetched_at + make_interval(hours => s.fetch_interval_hours),
                                    $1::timestamptz),
                           coalesce(s.circuit_open_until, '-infinity')) END AS next_due,
                       coalesce(i.recent, 0) AS recent, e.message AS last_error, e.at AS last_error_at,
                       CASE WHEN s.lease_until > $1::timestamptz THEN s.claimed_by END AS leased_by,
                       CASE WHEN w.state = 'subscribed' AND w.lease_expires_at <= $1::timestamptz THEN 'expired'
                            ELSE w.state END AS websub_state, w.hub AS websub_hub, w.lease_expires_at AS websub_lease
                FROM public.sources s
                LEFT JOIN public.websub_subscriptions w ON w.source_id = s.id
                LEFT JOIN items i ON i.source_id = s.id
                LEFT JOIN errors e ON e.slug = s.slug
                ORDER BY coalesce(s.is_active, false) DESC,
                         coalesce(s.circuit_open_until > $1::timestamptz, false) DESC,
                         s.consecutive_failures DESC,
                         s.last_fetched_at ASC NULLS FIRST,
                         s.slug
                """, [now, Self.statusErrorWindowDays], label: "source status").rows.map { row in
                SourceStatus(slug: row["slug"] ?? "", name: row["name"] ?? "", isActive: row["active"] == "t",
                             lastSuccessAt: row["last_fetched_at"].flatMap(PostgresTimestamp.parse),
                             lastError: row["last_error"],
                             lastErrorAt: row["last_error_at"].flatMap(PostgresTimestamp.parse),
                             consecutiveFailures: row.int("consecutive_failures") ?? 0,
                             circuitOpenUntil: row["circuit_open_until"].flatMap(PostgresTimestamp.parse),
                             nextDueAt: row["next_due"].flatMap(PostgresTimestamp.parse),
                             itemsLast24Hours: row.int("recent") ?? 0,
                             leasedBy: row["leased_by"], websubState: row["websub_state"], websubHub: row["websub_hub"],
                             websubLeaseUntil: row["websub_lease"].flatMap(PostgresTimestamp.parse))
            }
        }
    }
}
