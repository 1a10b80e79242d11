import ArticleStore
import Postgres
import PulseConfig
import PulseModel

/// `--prune [--dry-run]`: the retention windows of `feeds.yaml`, in short batches, safe while
/// daemons run.
struct PruneMode {
    let context: RunContext
    let dryRun: Bool

    func run() async -> Int32 {
        guard let conninfo = context.requiredDatabaseURL() else { return ExitStatus.usage }
        let windows = context.configuration.retention
        return await context.withConnection(context.connectionSettings(conninfo)) { connection in
            let counts = try await ArticleStore(connection: connection).prune(windows, dryRun: dryRun)
            print(Self.describe(counts, windows, dryRun: dryRun))
            return ExitStatus.success
        }
    }

    static func describe(_ counts: PruneCounts, _ windows: RetentionWindows, dryRun: Bool) -> String {
        (dryRun ? "prune (dry run, nothing changed): would remove " : "prune: removed ")
            + "\(counts.articlesDeleted) articles (> \(windows.articlesDays) d), "
            + "images of \(counts.imagesCleared) (> \(windows.imageDays) d), "
            + "bodies of \(counts.contentCleared) (> \(windows.contentDays) d), "
            + "\(counts.fetchLogsDeleted) fetch logs (> \(windows.fetchLogsDays) d)"
    }
}
