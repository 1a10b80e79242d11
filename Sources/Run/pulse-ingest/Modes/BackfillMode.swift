import ArticleStore
import FoundationEssentials
import Glibc
import HTTPFetcher
import Ingestion
import PulseModel
import Postgres
import PulseConfig

/// `--backfill [--kind image|content|language|all] [--limit N] [--source SLUG]`: fills what
/// ingest missed on stored rows. A progress bar on a terminal, one summary line otherwise.
/// `--kind search` (`pages` nil) fills the per-language search vectors of rows stored before
/// migration 14, builds their index concurrently and switches search_articles over
/// (`SearchBackfill`). SIGINT/SIGTERM stop after the batch in flight, with everything done so far
/// kept; a later run continues.
struct BackfillMode {
    struct Pages {
        let kinds: Set<BackfillKind>
        let limit: Int
        let sourceSlug: String?
        let fetcherConfiguration: FetcherConfiguration
    }

    let context: RunContext
    let pages: Pages?

    func run() async -> Int32 {
        await Lifecycle.runOnce(logger: context.logger) { stop in await run(stop: stop) }
    }

    /// The mode's work; the first SIGINT/SIGTERM sets `stop` (`Lifecycle`).
    func run(stop: StopSignal) async -> Int32 {
        guard let conninfo = context.requiredDatabaseURL() else { return ExitStatus.usage }
        var settings = context.connectionSettings(conninfo)
        // Search batches are short, but the check for rows left without a vector and the switch
        // each read the whole table once: on millions of rows that outlasts the usual statement
        // timeout, so, as for --migrate, none.
        if pages == nil { settings.statementTimeoutMilliseconds = 0 }
        return await context.withConnection(settings) { connection in
            if let pages {
                guard let line = try await fill(pages, store: ArticleStore(connection: connection), stop: stop) else {
                    return ExitStatus.usage
                }
                print(line)
            } else {
                print(try await SearchBackfill(connection: connection, logger: context.logger)
                    .run(shouldStop: { stop.isStopped }).line)
            }
            return ExitStatus.success
        }
    }

    /// The summary line, or nil (said why) when `--source` names no stored source.
    private func fill(_ pages: Pages, store: ArticleStore, stop: StopSignal) async throws -> String? {
        if let slug = pages.sourceSlug, try await store.source(slug: slug) == nil {
            context.fail("unknown source slug '\(slug)' (not in the database: run --migrate to sync \(context.configPath))")
            return nil
        }
        let fetcher = HTTPFetcher(configuration: pages.fetcherConfiguration, logger: context.logger)
        defer { fetcher.shutdown() }
        let backfiller = Backfiller(
            store: store, enricher: context.configuration.enricher(fetcher: fetcher, logger: context.logger),
            windows: context.configuration.retention, languageDetectionOff: context.configuration.languageDetectionOff,
            logger: context.logger)
        let bar = ProgressBar(enabled: isatty(STDERR_FILENO) == 1)
        let summary = try await backfiller.run(kinds: pages.kinds, limit: pages.limit, sourceSlug: pages.sourceSlug,
                                               shouldStop: { stop.isStopped }) { bar.show($0) }
        bar.finish()
        return summary.line
    }
}

/// `[#######.............] 120/500  3.2 rows/s  ETA 1m58s` on stderr, redrawn in place.
final class ProgressBar {
    let enabled: Bool
    private let started = ContinuousClock.now

    init(enabled: Bool) { self.enabled = enabled }

    func show(_ summary: BackfillSummary) {
        guard enabled, summary.candidates > 0 else { return }
        let width = 30
        let filled = width * summary.processed / summary.candidates
        let seconds = max((ContinuousClock.now - started).components.seconds, 1)
        let rate = Double(summary.processed) / Double(seconds)
        let remaining = rate > 0 ? Int(Double(summary.candidates - summary.processed) / rate) : 0
        let line = "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "] "
            + "\(summary.processed)/\(summary.candidates)  " + DecimalText.fixed(rate, places: 1) + " rows/s"
            + "  ETA \(remaining / 60)m\(remaining % 60)s"
        writeToStandardError("\r" + line + "\u{1B}[K")
    }

    func finish() {
        if enabled { writeToStandardError("\n") }
    }
}
