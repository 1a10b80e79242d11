import ArticleStore
import Logging
import Migrations
import Postgres
import PulseConfig
import PulseModel

/// `--migrate`: apply pending migrations under the advisory lock, then sync sources and
/// categories from the config.
struct MigrateMode {
    let context: RunContext

    func run() async -> Int32 {
        guard let conninfo = context.requiredDatabaseURL() else { return ExitStatus.usage }
        // Migrations run as the session user: SET ROLE service_role would drop the rights to
        // create roles and schema objects.
        var settings = ConnectionSettings(conninfo: conninfo, assumeServiceRole: false)
        settings.statementTimeoutMilliseconds = 0
        return await context.withConnection(settings) { connection in
            let report = try await Migrator(logger: context.logger).migrate(on: connection)
            print(Self.describe(report))
            let sync = try await ArticleStore(connection: connection).synchronize(
                categories: context.configuration.categoryDefinitions,
                sources: context.configuration.sourceDefinitions,
                deactivateUnlisted: context.configuration.pruneUnlisted)
            print(Self.describe(sync))
            return ExitStatus.success
        }
    }

    static func describe(_ report: MigrationReport) -> String {
        if !report.changedAnything { return "schema: up to date (\(report.alreadyDone.count) migrations)" }
        var parts: [String] = []
        if !report.applied.isEmpty { parts.append("applied \(report.applied.map(String.init).joined(separator: ", "))") }
        if !report.adopted.isEmpty { parts.append("adopted \(report.adopted.map(String.init).joined(separator: ", "))") }
        return "schema: " + parts.joined(separator: "; ")
    }

    /// What listed the sources a sync was given, as its summary names it.
    enum SyncOrigin {
        case config, file

        var name: String { self == .config ? "the config" : "the file" }
        var noActive: String { self == .config ? "no 'active:' in the config" : "no active value in the file" }
        var activeFalse: String { self == .config ? "'active: false'" : "active false" }
    }

    /// One summary line, then one line per kind of change that names the sources (at most
    /// `namesAtMost` of each, then how many more).
    static func describe(_ sync: SyncReport, origin: SyncOrigin = .config, namesAtMost: Int = .max) -> String {
        var text = "sources: \(sync.sourcesInserted.count) new, \(sync.sourcesUpdated.count) updated, "
            + "\(sync.sourcesUnchanged) unchanged"
        if !sync.sourcesDeactivated.isEmpty { text += ", \(sync.sourcesDeactivated.count) deactivated" }
        if sync.sourcesUnlisted > 0 { text += ", \(sync.sourcesUnlisted) in the database but not in \(origin.name)" }
        text += "; categories: \(sync.categoriesInserted) new, \(sync.categoriesUpdated) updated"
        let details: [(String, [String])] = [
            ("added", sync.sourcesInserted),
            ("updated", sync.sourcesUpdated.map(\.description)),
            ("left inactive by the database (\(origin.noActive))", sync.sourcesLeftInactive),
            ("deactivated by \(origin.name) (\(origin.activeFalse))", sync.sourcesDeactivatedByFile),
            ("deactivated as unlisted (prune_unlisted)", sync.sourcesDeactivated),
        ]
        for (what, slugs) in details where !slugs.isEmpty {
            text += "\n  \(what): " + slugs.prefix(namesAtMost).joined(separator: ", ")
            if slugs.count > namesAtMost { text += " and \(slugs.count - namesAtMost) more" }
        }
        return text
    }
}
