import FoundationEssentials
import Postgres

/// The fleet's source figures: the same for every daemon, so computed by one per interval.
public struct FleetGauges: Sendable, Equatable {
    /// Every source, and the active ones (kept by triggers in `source_totals`: exact).
    public var sources: Int
    public var active: Int
    /// Active sources due and waiting to be claimed (due, circuit closed, not leased).
    public var due: Int
    /// Active sources whose circuit breaker is open.
    public var circuitOpen: Int
    /// Active sources with at least one failure in a row.
    public var failing: Int
    /// True when `due`, `circuitOpen` or `failing` passed `ArticleStore.exactCountCeiling` and
    /// was estimated (see `ArticleStore.computeFleetGauges`).
    public var estimated: Bool

    public init(sources: Int, active: Int, due: Int, circuitOpen: Int, failing: Int, estimated: Bool) {
        (self.sources, self.active, self.due) = (sources, active, due)
        (self.circuitOpen, self.failing, self.estimated) = (circuitOpen, failing, estimated)
    }
}

/// The figures as one daemon (or `--status`) read them from `fleet_gauges`.
public struct FleetGaugeReading: Sendable, Equatable {
    public var gauges: FleetGauges
    /// When they were computed and by which worker, and how long ago (database clock).
    public var computedAt: Date
    public var computedBy: String
    public var age: Duration
    /// True when this call computed them.
    public var computedHere: Bool
}

extension ArticleStore {
    /// Above this many matching entries a count stops and the figure is estimated instead: each
    /// entry costs 0.1-0.2 us of an index-only scan, so counting a backlog of 1,000,000 due sources
    /// took 234 ms; up to here it stays under about 5 ms (20 ms on a loaded 2-core machine), and a larger backlog is told within a
    /// few percent, which is what an operator needs of it (is it shrinking or growing).
    public static let exactCountCeiling = 10_000
    /// Rows the estimate samples (whole pages, `TABLESAMPLE SYSTEM`): about 1% at 1,000,000.
    static let estimateSampleRows = 10_000
    /// The fleet gauges' transaction-scoped advisory lock ("pulse-ingest gauges").
    public static let gaugesLockKey: Int64 = 0x7075_6C73_6567_6175

    /// The fleet's figures, computed at most once per `interval` for the whole fleet: in one
    /// transaction, the caller that wins `pg_try_advisory_xact_lock` and finds the stored figures
    /// `interval` old (or none) computes and stores them; every other caller reads the stored
    /// ones, whatever the number of daemons. The lock is the transaction's, so it works through
    /// a transaction-mode pooler and is never left on a pooled session; a daemon that dies while
    /// computing loses it with its transaction. Nil when none are stored yet and another
    /// session is computing the first.
    public func fleetGauges(workerID: String, interval: Duration, at now: Date = Date()) async throws -> FleetGaugeReading? {
        // One second of slack: a daemon that reads every `interval` must find its own figures due.
        let refreshAfter = max(0, interval.seconds - 1)
        return try await connection.withReconnect(label: "fleet gauges") { db in
            try db.withTransaction(label: "fleet gauges") { db in
                let state = try db.query("""
                    SELECT pg_try_advisory_xact_lock($1) AS leader,
                           (SELECT extract(epoch FROM clock_timestamp() - computed_at) FROM public.fleet_gauges) AS age
                    """, [Self.gaugesLockKey], label: "fleet gauges: lock").rows.first
                let age = state?["age"].flatMap { Double($0) }
                var computedHere = false
                if state?.bool("leader") == true, age.map({ $0 >= refreshAfter }) ?? true {
                    let started = ContinuousClock.now
                    let gauges = try Self.computeFleetGauges(db, at: now)
                    let took = (ContinuousClock.now - started).seconds * 1000
                    try Self.store(gauges, by: workerID, milliseconds: took, db)
                    computedHere = true
                }
                guard let row = try db.query("""
                    SELECT computed_at, computed_by, sources, active, due, circuit_open, failing, estimated,
                           extract(epoch FROM clock_timestamp() - computed_at) AS age
                    FROM public.fleet_gauges
                    """, label: "fleet gauges: read").rows.first else { return nil }
                return FleetGaugeReading(
                    gauges: FleetGauges(sources: row.int("sources") ?? 0, active: row.int("active") ?? 0,
                                        due: row.int("due") ?? 0, circuitOpen: row.int("circuit_open") ?? 0,
                                        failing: row.int("failing") ?? 0, estimated: row.bool("estimated") ?? false),
                    computedAt: row.date("computed_at") ?? now,
                    computedBy: row["computed_by"] ?? "",
                    age: .milliseconds(Int64(max(0, (row["age"].flatMap { Double($0) } ?? 0) * 1000))),
                    computedHere: computedHere)
            }
        }
    }

    /// The figures as they are at `now`, without storing them (the work `fleetGauges` does once per
    /// interval; tests ask it at chosen times).
    public func computeFleetGauges(at now: Date = Date()) async throws -> FleetGauges {
        try await connection.withReconnect(label: "compute fleet gauges") { db in
            try db.withTransaction(label: "compute fleet gauges") { db in try Self.computeFleetGauges(db, at: now) }
        }
    }

    /// Totals from the trigger-kept `source_totals`; due, open circuits and failing counted from
    /// their partial indexes, each at most `exactCountCeiling` entries; a count that reaches the
    /// ceiling is estimated from a page sample of the table, scaled by the exact total.
    static func computeFleetGauges(_ db: isolated PostgresConnection, at now: Date) throws -> FleetGauges {
        let row = try db.query("""
            SELECT (SELECT sources FROM public.source_totals) AS sources,
                   (SELECT active FROM public.source_totals) AS active,
                   (SELECT count(*) FROM (SELECT 1 FROM public.sources
                        WHERE is_active AND due_at <= $1::timestamptz LIMIT $2) d) AS due,
                   (SELECT count(*) FROM (SELECT 1 FROM public.sources
                        WHERE is_active AND circuit_open_until IS NOT NULL AND circuit_open_until > $1::timestamptz
                        LIMIT $2) c) AS circuit_open,
                   (SELECT count(*) FROM (SELECT 1 FROM public.sources
                        WHERE is_active AND consecutive_failures > 0 LIMIT $2) f) AS failing
            """, [now, exactCountCeiling], label: "fleet gauges: count").rows.first
        let sources = row?.int("sources") ?? 0
        var gauges = FleetGauges(sources: sources, active: row?.int("active") ?? 0, due: row?.int("due") ?? 0,
                                 circuitOpen: row?.int("circuit_open") ?? 0, failing: row?.int("failing") ?? 0,
                                 estimated: false)
        guard [gauges.due, gauges.circuitOpen, gauges.failing].contains(where: { $0 >= exactCountCeiling }) else {
            return gauges
        }
        let percent = min(100, 100 * Double(estimateSampleRows) / Double(max(sources, 1)))
        let sample = try db.query("""
            SELECT count(*) AS rows,
                   count(*) FILTER (WHERE is_active AND due_at <= $1::timestamptz) AS due,
                   count(*) FILTER (WHERE is_active AND circuit_open_until > $1::timestamptz) AS circuit_open,
                   count(*) FILTER (WHERE is_active AND consecutive_failures > 0) AS failing
            FROM public.sources TABLESAMPLE SYSTEM ($2::double precision)
            """, [now, percent], label: "fleet gauges: sample").rows.first
        let sampled = sample?.int("rows") ?? 0
        func estimate(_ exact: Int, _ column: String) -> Int {
            guard exact >= exactCountCeiling, sampled > 0 else { return exact }
            let scaled = Double(sample?.int(column) ?? 0) / Double(sampled) * Double(sources)
            return min(sources, max(exact, Int(scaled.rounded())))
        }
        gauges.due = estimate(gauges.due, "due")
        gauges.circuitOpen = estimate(gauges.circuitOpen, "circuit_open")
        gauges.failing = estimate(gauges.failing, "failing")
        gauges.estimated = true
        return gauges
    }

    private static func store(_ gauges: FleetGauges, by workerID: String, milliseconds: Double,
                              _ db: isolated PostgresConnection) throws {
        try db.query("""
            INSERT INTO public.fleet_gauges AS g (id, computed_at, computed_by, compute_ms, sources, active, due,
                                                  circuit_open, failing, estimated)
            VALUES (true, clock_timestamp(), $1, $2, $3, $4, $5, $6, $7, $8)
            ON CONFLICT (id) DO UPDATE SET
                computed_at = excluded.computed_at, computed_by = excluded.computed_by, compute_ms = excluded.compute_ms,
                sources = excluded.sources, active = excluded.active, due = excluded.due,
                circuit_open = excluded.circuit_open, failing = excluded.failing, estimated = excluded.estimated
            """, [workerID, milliseconds, gauges.sources, gauges.active, gauges.due, gauges.circuitOpen,
                  gauges.failing, gauges.estimated], label: "fleet gauges: store")
    }
}
