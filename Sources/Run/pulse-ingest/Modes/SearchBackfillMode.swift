import ArticleStore
import Ingestion
import Postgres

/// `--backfill --kind search`: fills the per-language search vectors of rows stored before
/// migration 14, builds their index concurrently and switches search_articles over (see
/// `SearchBackfill`). SIGINT/SIGTERM stop after the batch in flight; a later run resumes.
struct SearchBackfillMode {
    let context: RunContext

    func run() async -> Int32 {
        await Lifecycle.runOnce(logger: context.logger) { stop in await run(stop: stop) }
    }

    /// The mode's work; the first SIGINT/SIGTERM sets `stop` (`Lifecycle`).
    func run(stop: StopSignal) async -> Int32 {
        guard let conninfo = context.requiredDatabaseURL() else { return ExitStatus.usage }
        do {
            // Batches are short, but the check for rows left without a vector and the switch each
            // read the whole table once: on millions of rows that outlasts the usual statement
            // timeout, so, as for --migrate, none.
            var settings = context.connectionSettings(conninfo)
            settings.statementTimeoutMilliseconds = 0
            let connection = try await PostgresConnection.connect(settings: settings, logger: context.logger)
            let summary = try await SearchBackfill(connection: connection, logger: context.logger)
                .run(shouldStop: { stop.isStopped })
            print(summary.line)
            await connection.close()
            return ExitStatus.success
        } catch {
            context.fail("\(error)")
            return ExitStatus.unavailable
        }
    }
}
