import Foundation
import Migrations
import Postgres
import TestSupport
import Testing

/// Roles belong to the cluster, not to a database: on a fresh cluster (CI's), the first migrations
/// of several databases race to create `anon`, `authenticated`, `service_role` and
/// `authenticator`. The shared test cluster has had them since its first run, so this uses a
/// cluster of its own. A fresh clone's `make test` failed once with "role authenticator does not
/// exist" from migration 7.
@Suite(.tags(.integration), .needsDatabase)
struct FreshClusterMigrationTests {
    static let databases = 6

    @Test func firstMigrationsOfSeveralDatabasesShareTheClusterRoles() async throws {
        let cluster = try PrivateCluster.make()
        defer { cluster.destroy() }
        try await cluster.run("start")
        let adminURL = try cluster.url
        let logger = TestDatabase.logger
        let admin = try await PostgresConnection.connect(
            settings: ConnectionSettings(conninfo: adminURL, assumeServiceRole: false), logger: logger)
        for index in 0..<Self.databases {
            try await admin.runOutsideTransaction("CREATE DATABASE fresh_\(index)", label: "create database")
        }
        let base = String(adminURL[..<adminURL.range(of: "/pulse", options: .backwards)!.lowerBound])
        let reports = try await withThrowingTaskGroup(of: [Int].self) { group in
            for index in 0..<Self.databases {
                group.addTask {
                    let db = try await PostgresConnection.connect(
                        settings: ConnectionSettings(conninfo: "\(base)/fresh_\(index)", assumeServiceRole: false),
                        logger: logger)
                    do {
                        let report = try await Migrator(logger: logger).migrate(on: db)
                        await db.close()
                        return report.applied
                    } catch {
                        await db.close()
                        throw error
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(reports.count == Self.databases)
        #expect(reports.allSatisfy { $0 == Array(1...15) }, "\(reports)")
        let members = try await admin.query("""
            SELECT array_agg(g.rolname ORDER BY g.rolname)::text FROM pg_catalog.pg_auth_members m
            JOIN pg_catalog.pg_roles r ON r.oid = m.member JOIN pg_catalog.pg_roles g ON g.oid = m.roleid
            WHERE r.rolname = 'authenticator'
            """, label: "authenticator's roles").rows.first?[0]
        #expect(members == "{anon,authenticated,service_role}")
        await admin.close()
    }

    /// A role another database's migration creates stays uncommitted until that whole migration
    /// commits; ours must not wait for it (CI, fresh cluster: three tests at once failed with
    /// "migration 1 (base schema): canceling statement due to lock timeout"). Here the other
    /// migration is held open by an advisory lock until ours has finished, so without the roles
    /// made first our `CREATE ROLE` would wait past its 1 s lock_timeout every time.
    @Test func aRoleIsNotHeldByAnotherDatabasesUnfinishedMigration() async throws {
        let role = "pulse_test_role_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let gateKey = Int64.random(in: 1...Int64.max)
        let makesRole = Migration(version: 1, name: "role", clusterRoles: [ClusterRole(role, creation: "CREATE ROLE \(role) NOLOGIN")], sql: """
            DO $$ BEGIN CREATE ROLE \(role) NOLOGIN;
            EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$;
            """)
        let waitsAtTheGate = Migration(version: 2, name: "gate", sql: """
            SELECT set_config('lock_timeout', '0', true); SELECT pg_advisory_xact_lock(\(gateKey));
            """)
        let logger = TestDatabase.logger
        try await TestDatabase.with { first in
            try await TestDatabase.with { second in
                let gate = try await first.connect(serviceRole: false)
                try await gate.runOutsideTransaction("SELECT pg_advisory_lock(\(gateKey))", label: "close the gate")
                let held = Task {
                    let connection = try await first.connect(serviceRole: false)
                    do {
                        let report = try await Migrator(migrations: [makesRole, waitsAtTheGate], logger: logger)
                            .migrate(on: connection)
                        await connection.close()
                        return report
                    } catch {
                        await connection.close()
                        throw error
                    }
                }
                var waiting = false
                for _ in 0..<1200 where !waiting {
                    waiting = try await gate.query("""
                        SELECT count(*) FROM pg_catalog.pg_locks WHERE locktype = 'advisory' AND NOT granted
                          AND database = (SELECT oid FROM pg_catalog.pg_database WHERE datname = current_database())
                        """, label: "gate waiters").rows.first?[0] == "1"
                    if !waiting { try await Task.sleep(for: .milliseconds(50)) }
                }
                #expect(waiting, "the first migration never reached the gate")

                var settings = second.settings(serviceRole: false)
                settings.lockTimeoutMilliseconds = 1000
                let connection = try await PostgresConnection.connect(settings: settings, logger: logger)
                do {
                    let report = try await Migrator(migrations: [makesRole], logger: logger).migrate(on: connection)
                    #expect(report.applied == [1])
                } catch {
                    Issue.record("the second database's migration failed: \(error)")
                }
                await connection.close()

                try await gate.runOutsideTransaction("SELECT pg_advisory_unlock(\(gateKey))", label: "open the gate")
                #expect(try await held.value.applied == [1, 2])
                try await gate.runOutsideTransaction("DROP ROLE IF EXISTS \(role)", label: "drop the test role")
                await gate.close()
            }
        }
    }
}
