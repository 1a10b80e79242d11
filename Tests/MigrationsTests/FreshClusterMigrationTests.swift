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
}
