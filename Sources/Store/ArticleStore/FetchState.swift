import FoundationEssentials
import Postgres

/// Per-source fetch state of the data contract (section 5): validators, failures, circuit breaker.
/// The statements run once per fetch, thousands of times a cycle, so each session prepares them
/// once: parsing and planning them on every call was about 4% of PostgreSQL's CPU in a cycle.
extension ArticleStore {
    /// Failures before the circuit opens, and its windows: 1 h doubling per further failure, 24 h cap.
    public static let circuitThreshold = 5

    /// A successful fetch (200 or 304): failures reset, circuit closed, `last_fetched_at` stamped.
    /// New validators replace the old; a 304 without validators keeps the old ones; a 200 without
    /// them clears them (the new body has none).
    /// With `schedule`, the next due time is stored and the worker's lease released in the same
    /// statement (so a finished source never stays claimed).
    public func recordFetchSuccess(sourceID: String, etag: String?, lastModified: String?,
                                   notModified: Bool, at now: Date = Date(),
                                   schedule: NextFetch? = nil) async throws {
        try await connection.withReconnect(label: "record fetch success") { db in
            try db.query("""
                UPDATE public.sources SET
                    consecutive_failures = 0,
                    circuit_open_until = NULL,
                    etag = coalesce($2, CASE WHEN $4::boolean THEN etag END),
                    last_modified = coalesce($3, CASE WHEN $4::boolean THEN last_modified END),
                    last_fetched_at = $5::timestamptz,
                    next_due_at = coalesce($6::timestamptz, next_due_at),
                    lease_until = CASE WHEN claimed_by = $7 THEN NULL ELSE lease_until END,
                    claimed_by = CASE WHEN claimed_by = $7 THEN NULL ELSE claimed_by END,
                    updated_at = now()
                WHERE id = $1::uuid
                """, [sourceID, etag, lastModified, notModified, now, schedule?.dueAt, schedule?.workerID],
                label: "record fetch success")
        }
    }

    /// A failed fetch: one more consecutive failure; from the fifth the circuit opens for
    /// 1 h * 2^(failures - 5), at most 24 h. Validators are kept. Returns the new state.
    @discardableResult
    public func recordFetchFailure(sourceID: String, at now: Date = Date(), schedule: NextFetch? = nil) async throws
        -> (consecutiveFailures: Int, circuitOpenUntil: Date?) {
        let row = try await connection.withReconnect(label: "record fetch failure") { db in
            try db.query("""
                UPDATE public.sources SET
                    consecutive_failures = consecutive_failures + 1,
                    circuit_open_until = CASE
                        WHEN consecutive_failures + 1 >= $3 THEN $2::timestamptz + LEAST(
                            interval '1 hour' * power(2, LEAST(consecutive_failures + 1 - $3, 5)),
                            interval '24 hours')
                        ELSE circuit_open_until END,
                    next_due_at = coalesce($4::timestamptz, next_due_at),
                    lease_until = CASE WHEN claimed_by = $5 THEN NULL ELSE lease_until END,
                    claimed_by = CASE WHEN claimed_by = $5 THEN NULL ELSE claimed_by END,
                    updated_at = now()
                WHERE id = $1::uuid
                RETURNING consecutive_failures, circuit_open_until
                """, [sourceID, now, Self.circuitThreshold, schedule?.dueAt, schedule?.workerID],
                label: "record fetch failure").rows.first
        }
        return (row?.int("consecutive_failures") ?? 0, row?.date("circuit_open_until"))
    }
}
