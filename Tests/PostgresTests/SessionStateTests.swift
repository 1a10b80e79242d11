import Foundation
import Migrations
import Postgres
import TestSupport
import Testing

/// The session layer's rules: settings per transaction, an unusable session replaced, the
/// migration lock bounded and its holder named.
@Suite(.tags(.integration), .needsDatabase)
struct SessionStateTests {
    /// The per-transaction settings reach the statement sent with them (one pipeline, one
    /// implicit transaction), and end with it.
    @Test func statementTimeoutAppliesToEachStatement() async throws {
        try await TestDatabase.with { database in
            var settings = database.settings(serviceRole: false)
            settings.statementTimeoutMilliseconds = 200
            let db = try await PostgresConnection.connect(settings: settings, logger: TestDatabase.logger)
            do {
                try await db.query("SELECT pg_sleep(5)", label: "slow")
                Issue.record("statement_timeout did not apply")
            } catch let error as PostgresError {
                #expect(error.sqlState == "57014", "\(error)")
            }
            let inside = try await db.query("SELECT current_setting('statement_timeout') AS t, current_setting('TimeZone') AS z",
                                            label: "settings").rows.first
            #expect(inside?["t"] == "200ms" && inside?["z"] == "UTC")
            let session = try await db.runOutsideTransaction("SELECT current_setting('statement_timeout')", label: "session")
            #expect(session.rows.first?[0] == "0", "nothing is set for the session")
            // Inside an explicit transaction too.
            let inTransaction = try await db.withTransaction(label: "tx") { db in
                try db.query("SELECT current_setting('statement_timeout')", label: "in tx").rows.first?[0]
            }
            #expect(inTransaction == "200ms")
            await db.close()
        }
    }

    /// A session opened while the database refused writes keeps refusing them after the database
    /// is writable again (the setting is read at connect): 25006 replaces the session and the unit
    /// of work runs once more.
    @Test func aReadOnlySessionIsReplacedAndTheWorkRetriedOnce() async throws {
        try await TestDatabase.with { database in
            await (try await database.migratedConnection()).close()
            let admin = try await database.connect(serviceRole: false)
            try await admin.runOutsideTransaction("ALTER DATABASE \(database.name) SET default_transaction_read_only = on",
                                                  label: "read-only")
            let worker = try await database.connect()
            let before = await worker.backendPID
            try await admin.runOutsideTransaction("ALTER DATABASE \(database.name) RESET default_transaction_read_only",
                                                  label: "writable")
            let inserted = try await worker.withReconnect(label: "write") { db in
                try db.query("INSERT INTO public.fetch_logs DEFAULT VALUES", label: "write").affectedRows
            }
            #expect(inserted == 1)
            #expect(await worker.backendPID != before, "the read-only session must be replaced")
            // Still read-only after the retry: the error reaches the caller (no endless loop).
            try await admin.runOutsideTransaction("ALTER DATABASE \(database.name) SET default_transaction_read_only = on",
                                                  label: "read-only again")
            try await admin.query("SELECT pg_terminate_backend($1)", [await worker.backendPID], label: "end session")
            do {
                try await worker.withReconnect(label: "write") { db in
                    try db.query("INSERT INTO public.fetch_logs DEFAULT VALUES", label: "write")
                }
                Issue.record("a read-only database must fail the write")
            } catch let error as PostgresError {
                #expect(error.sqlState == "25006", "\(error)")
            }
            try await admin.runOutsideTransaction("ALTER DATABASE \(database.name) RESET default_transaction_read_only",
                                                  label: "writable")
            await worker.close()
            await admin.close()
        }
    }

    /// A migration waits for another's lock at most `lockWait`, then fails naming the holder; the
    /// lock is the holder's transaction's, so it goes with it.
    @Test func theMigrationLockWaitIsBoundedAndNamesTheHolder() async throws {
        try await TestDatabase.with { database in
            let holder = try await database.connect(serviceRole: false)
            try await holder.runOutsideTransaction("BEGIN", label: "hold")
            try await holder.runOutsideTransaction("SELECT pg_advisory_xact_lock(\(Int64(0x7075_6C73_656D_6967)))", label: "hold")
            let holderPID = await holder.backendPID
            let migrating = try await database.connect(serviceRole: false)
            do {
                _ = try await Migrator(lockWait: .milliseconds(300), logger: TestDatabase.logger).migrate(on: migrating)
                Issue.record("migrated while another session held the lock")
            } catch let error as PostgresError {
                #expect(error.message.contains("backend pid \(holderPID)"), "\(error)")
                #expect(error.message.contains("application 'pulse-ingest'"), "\(error)")
            }
            try await holder.runOutsideTransaction("ROLLBACK", label: "release")
            let report = try await Migrator(logger: TestDatabase.logger).migrate(on: migrating)
            #expect(report.applied.count == Migration.all.count)
            await holder.close()
            await migrating.close()
        }
    }
}
