import Logging
import Postgres

/// What one `migrate` call did.
public struct MigrationReport: Sendable, Equatable {
    public var applied: [Int] = []
    public var adopted: [Int] = []
    public var alreadyDone: [Int] = []

    public var changedAnything: Bool { !applied.isEmpty || !adopted.isEmpty }
}

/// Applies pending migrations in order, all in one transaction under a transaction-scoped
/// advisory lock, so two processes (two hosts deploying at once) cannot race: the second waits
/// (at most `lockWait`, then fails naming the holder), then finds nothing to do. The lock ends
/// with the transaction, so it works through a transaction-mode pooler and is never left behind
/// on a pooled server session. History lives in `pulse_ingest.schema_migrations`, our own schema,
/// so it never collides with the Supabase CLI's history and the API roles cannot see it.
public struct Migrator: Sendable {
    /// Key of the advisory lock ("pulse-ingest migrate").
    static let lockKey: Int64 = 0x7075_6C73_656D_6967
    public let migrations: [Migration]
    /// How long to wait for another process's migration before giving up.
    public var lockWait: Duration
    private let logger: Logger

    public init(migrations: [Migration] = Migration.all, lockWait: Duration = .seconds(60), logger: Logger) {
        self.migrations = migrations.sorted { $0.version < $1.version }
        self.lockWait = lockWait
        self.logger = logger
    }

    public func migrate(on connection: PostgresConnection) async throws -> MigrationReport {
        try await createClusterRoles(on: connection)
        let report = try await connection.withTransaction(label: "migrate") { db in
            try lock(db)
            return try applyPending(db)
        }
        for version in report.adopted { logger.info("adopted existing schema", metadata: ["version": "\(version)"]) }
        for version in report.applied { logger.info("applied migration", metadata: ["version": "\(version)"]) }
        return report
    }

    /// Creates the roles pending migrations need, each in a transaction of its own, before the
    /// migration. Roles belong to the cluster, not the database: while a migration of another
    /// database on the same cluster (parallel tests, two fresh deployments) holds a new role
    /// uncommitted, our `CREATE ROLE` of that name waits for its whole migration to commit, and
    /// past `lock_timeout` fails ("migration 1 (base schema): canceling statement due to lock
    /// timeout" in CI). Made here, the role is uncommitted for milliseconds. The migrations keep
    /// their own blocks (idle once the role exists), so their checksums are unchanged.
    private func createClusterRoles(on connection: PostgresConnection) async throws {
        let wanted = migrations.flatMap(\.clusterRoles)
        guard !wanted.isEmpty else { return }
        let present = try await connection.withReconnect(label: "cluster roles") { db in
            Set(try db.query("SELECT rolname FROM pg_catalog.pg_roles WHERE rolname = ANY ($1::text[])",
                             [PostgresArray.text(wanted.map(\.name))], label: "cluster roles").rows.compactMap { $0[0] })
        }
        if wanted.allSatisfy({ present.contains($0.name) }) { return }
        for role in try await pending(on: connection).flatMap(\.clusterRoles) where !present.contains(role.name) {
            do {
                try await connection.executeScript(role.creation, label: "cluster role \(role.name)")
            } catch let error as PostgresError where ["42710", "23505", "42501"].contains(error.sqlState ?? "") {
                // Made by another migration meanwhile (42710, 23505), or we may not create roles
                // (42501): the migration's own block then decides, as before this step existed.
                continue
            }
        }
    }

    /// Versions not yet recorded in the history (the table may not exist yet).
    public func pending(on connection: PostgresConnection) async throws -> [Migration] {
        let done = try await connection.withReconnect(label: "migration history") { db in try appliedVersions(db) }
        return migrations.filter { done[$0.version] == nil }
    }

    /// Takes the lock for this transaction; when another session holds it, names that session and
    /// waits for it at most `lockWait` (as the transaction's lock_timeout).
    private func lock(_ db: isolated PostgresConnection) throws {
        if try db.query("SELECT pg_try_advisory_xact_lock($1)", [Self.lockKey], label: "migration lock").rows.first?[0] == "t" {
            return
        }
        let holder = try self.holder(db)
        logger.info("another process is migrating this database; waiting for it", metadata: [
            "holder": "\(holder)", "wait": "\(lockWait)",
        ])
        let milliseconds = max(1, lockWait.components.seconds * 1000 + lockWait.components.attoseconds / 1_000_000_000_000_000)
        try db.query("SELECT set_config('lock_timeout', $1, true)", [String(milliseconds)], label: "migration lock")
        do {
            try db.query("SELECT pg_advisory_xact_lock($1)", [Self.lockKey], label: "migration lock")
        } catch let error as PostgresError where error.sqlState == "55P03" {
            throw PostgresError(kind: .client, statement: "migration lock",
                                message: "another migration has held the lock for over \(milliseconds) ms: "
                                    + "\(holder); try again when it has finished")
        }
    }

    /// Who holds the lock, as pg_stat_activity shows them (what the role may see of it).
    private func holder(_ db: isolated PostgresConnection) throws -> String {
        let row = try db.query("""
            SELECT a.pid, a.application_name, a.client_addr::text AS client, a.usename, a.state,
                   to_char(a.xact_start AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS since
            FROM pg_catalog.pg_locks l LEFT JOIN pg_catalog.pg_stat_activity a ON a.pid = l.pid
            WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
              AND l.database = (SELECT oid FROM pg_catalog.pg_database WHERE datname = current_database())
              AND l.classid = ($1::bigint >> 32)::oid AND l.objid = ($1::bigint & 4294967295)::oid
            LIMIT 1
            """, [Self.lockKey], label: "migration lock holder").rows.first
        guard let row, let pid = row["pid"] else { return "a session this role cannot see" }
        var parts = ["backend pid \(pid)"]
        if let name = row["application_name"], !name.isEmpty { parts.append("application '\(name)'") }
        if let user = row["usename"] { parts.append("user \(user)") }
        if let client = row["client"] { parts.append("from \(client)") }
        if let since = row["since"] { parts.append("in a transaction since \(since)") }
        return parts.joined(separator: ", ")
    }

    private func applyPending(_ db: isolated PostgresConnection) throws -> MigrationReport {
        try db.executeScript("""
            CREATE SCHEMA IF NOT EXISTS pulse_ingest;
            REVOKE ALL ON SCHEMA pulse_ingest FROM PUBLIC;
            CREATE TABLE IF NOT EXISTS pulse_ingest.schema_migrations (
                version integer PRIMARY KEY,
                name text NOT NULL,
                checksum text NOT NULL,
                mode text NOT NULL CHECK (mode IN ('applied', 'adopted')),
                applied_at timestamptz NOT NULL DEFAULT now()
            );
            """, label: "migration history table")
        let done = try appliedVersions(db)
        var report = MigrationReport()
        for migration in migrations {
            if let checksum = done[migration.version] {
                if checksum != migration.checksum {
                    logger.warning("migration changed since it was applied", metadata: [
                        "version": "\(migration.version)", "name": "\(migration.name)",
                    ])
                }
                report.alreadyDone.append(migration.version)
                continue
            }
            let adopt = try shouldAdopt(migration, db)
            let label = "migration \(migration.version) (\(migration.name))"
            if !adopt { try db.executeScript(migration.sql, label: label) }
            try db.query("""
                INSERT INTO pulse_ingest.schema_migrations (version, name, checksum, mode)
                VALUES ($1, $2, $3, $4)
                """, [migration.version, migration.name, migration.checksum, adopt ? "adopted" : "applied"],
                label: label)
            if adopt { report.adopted.append(migration.version) } else { report.applied.append(migration.version) }
        }
        return report
    }

    private func appliedVersions(_ db: isolated PostgresConnection) throws -> [Int: String] {
        let exists = try db.query(
            "SELECT to_regclass('pulse_ingest.schema_migrations') IS NOT NULL", label: "migration history check")
        guard exists.rows.first?[0] == "t" else { return [:] }
        let rows = try db.query("SELECT version, checksum FROM pulse_ingest.schema_migrations",
                                label: "migration history")
        var versions: [Int: String] = [:]
        for row in rows.rows { if let version = row.int("version") { versions[version] = row["checksum"] ?? "" } }
        return versions
    }

    /// All probed objects exist: adopt. None: run. Some: refuse, since running would fail halfway
    /// and skipping would leave the schema incomplete; the operator must look.
    private func shouldAdopt(_ migration: Migration, _ db: isolated PostgresConnection) throws -> Bool {
        guard let probe = migration.adoption else { return false }
        let sql: String
        switch probe {
        case .condition(let query):
            return try db.query(query, label: "adoption probe").rows.first?[0] == "t"
        case .relations:
            sql = """
                SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE n.nspname = 'public' AND c.relname = ANY ($1::text[])
                """
        case .functions:
            sql = """
                SELECT DISTINCT p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
                WHERE n.nspname = 'public' AND p.proname = ANY ($1::text[])
                """
        }
        let found = Set(try db.query(sql, [PostgresArray.text(probe.names)], label: "adoption probe").rows.compactMap { $0[0] })
        if found.isEmpty { return false }
        if found.count == Set(probe.names).count { return true }
        let missing = probe.names.filter { !found.contains($0) }
        throw PostgresError(kind: .client, statement: "migration \(migration.version) (\(migration.name))",
                            message: "the database holds part of the Pulse schema (\(found.sorted().joined(separator: ", "))) "
                                + "but not \(missing.joined(separator: ", ")); refusing to guess. "
                                + "Finish the backend's migrations or restore the missing objects, then run --migrate again")
    }
}
