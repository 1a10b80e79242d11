import Logging
import Postgres

/// What one `migrate` call did.
public struct MigrationReport: Sendable, Equatable {
    public var applied: [Int] = []
    public var adopted: [Int] = []
    public var alreadyDone: [Int] = []

    public var changedAnything: Bool { !applied.isEmpty || !adopted.isEmpty }
}

/// Applies pending migrations in order, each in its own transaction, under a PostgreSQL advisory
/// lock so two processes (two hosts deploying at once) cannot race: the second waits, then finds
/// nothing to do. History lives in `pulse_ingest.schema_migrations`, our own schema, so it never
/// collides with the Supabase CLI's history and the API roles cannot see it.
public struct Migrator: Sendable {
    /// Key of the session advisory lock ("pulse-ingest migrate").
    static let lockKey: Int64 = 0x7075_6C73_656D_6967
    public let migrations: [Migration]
    private let logger: Logger

    public init(migrations: [Migration] = Migration.all, logger: Logger) {
        self.migrations = migrations.sorted { $0.version < $1.version }
        self.logger = logger
    }

    public func migrate(on connection: PostgresConnection) async throws -> MigrationReport {
        try await acquireLock(on: connection)
        do {
            let report = try await applyPending(on: connection)
            try await connection.query("SELECT pg_advisory_unlock($1)", [Self.lockKey], label: "migration unlock")
            return report
        } catch {
            // The lock is per session: closing the session also frees it if unlocking fails.
            _ = try? await connection.query("SELECT pg_advisory_unlock($1)", [Self.lockKey],
                                            label: "migration unlock")
            throw error
        }
    }

    /// Versions not yet recorded in the history (the table may not exist yet).
    public func pending(on connection: PostgresConnection) async throws -> [Migration] {
        let done = try await appliedVersions(on: connection)
        return migrations.filter { done[$0.version] == nil }
    }

    private func acquireLock(on connection: PostgresConnection) async throws {
        var announced = false
        while true {
            let row = try await connection.query("SELECT pg_try_advisory_lock($1)", [Self.lockKey],
                                                 label: "migration lock").rows.first
            if row?[0] == "t" { return }
            if !announced {
                logger.info("another process is migrating this database; waiting for it")
                announced = true
            }
            try await Task.sleep(for: .milliseconds(200))
        }
    }

    private func applyPending(on connection: PostgresConnection) async throws -> MigrationReport {
        try await connection.executeScript("""
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
        let done = try await appliedVersions(on: connection)
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
            let adopt = try await shouldAdopt(migration, on: connection)
            let label = "migration \(migration.version) (\(migration.name))"
            try await connection.withTransaction(label: label) { db in
                if !adopt { try db.executeScript(migration.sql, label: label) }
                try db.query("""
                    INSERT INTO pulse_ingest.schema_migrations (version, name, checksum, mode)
                    VALUES ($1, $2, $3, $4)
                    """, [migration.version, migration.name, migration.checksum, adopt ? "adopted" : "applied"],
                    label: label)
            }
            logger.info(adopt ? "adopted existing schema" : "applied migration", metadata: [
                "version": "\(migration.version)", "name": "\(migration.name)",
            ])
            if adopt { report.adopted.append(migration.version) } else { report.applied.append(migration.version) }
        }
        return report
    }

    private func appliedVersions(on connection: PostgresConnection) async throws -> [Int: String] {
        let exists = try await connection.query(
            "SELECT to_regclass('pulse_ingest.schema_migrations') IS NOT NULL", label: "migration history check")
        guard exists.rows.first?[0] == "t" else { return [:] }
        let rows = try await connection.query("SELECT version, checksum FROM pulse_ingest.schema_migrations",
                                              label: "migration history")
        var versions: [Int: String] = [:]
        for row in rows.rows { if let version = row.int("version") { versions[version] = row["checksum"] ?? "" } }
        return versions
    }

    /// All probed objects exist: adopt. None: run. Some: refuse, since running would fail halfway
    /// and skipping would leave the schema incomplete; the operator must look.
    private func shouldAdopt(_ migration: Migration, on connection: PostgresConnection) async throws -> Bool {
        guard let probe = migration.adoption else { return false }
        let sql: String
        switch probe {
        case .condition(let query):
            return try await connection.query(query, label: "adoption probe").rows.first?[0] == "t"
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
        let found = Set(try await connection.query(sql, [PostgresArray.text(probe.names)],
                                                   label: "adoption probe").rows.compactMap { $0[0] })
        if found.isEmpty { return false }
        if found.count == Set(probe.names).count { return true }
        let missing = probe.names.filter { !found.contains($0) }
        throw PostgresError(kind: .client, statement: "migration \(migration.version) (\(migration.name))",
                            message: "the database holds part of the Pulse schema (\(found.sorted().joined(separator: ", "))) "
                                + "but not \(missing.joined(separator: ", ")); refusing to guess. "
                                + "Finish the backend's migrations or restore the missing objects, then run --migrate again")
    }
}
