import ArticleStore
import FoundationEssentials
import Glibc
import HTTPFetcher
import Ingestion
import PulseModel
import Postgres
import PulseConfig

/// `--backfill [--kind image|content|language|all] [--limit N] [--source SLUG]`: fills what
/// ingest missed on stored rows. A progress bar on a terminal, one summary line otherwise;
/// SIGINT/SIGTERM stop after the batch in flight, with everything done so far kept.
struct BackfillMode {
    let context: RunContext
    let kinds: Set<BackfillKind>
    let limit: Int
    let sourceSlug: String?
    let fetcherConfiguration: FetcherConfiguration

    func run() async -> Int32 {
        guard let conninfo = context.requiredDatabaseURL() else { return ExitStatus.usage }
        let trap = SignalTrap()
        let fetcher = HTTPFetcher(configuration: fetcherConfiguration, logger: context.logger)
        defer { fetcher.shutdown() }
        do {
            let connection = try await PostgresConnection.connect(settings: context.connectionSettings(conninfo),
                                                                  logger: context.logger)
            let store = ArticleStore(connection: connection)
            if let sourceSlug, try await store.source(slug: sourceSlug) == nil {
                context.fail("unknown source slug '\(sourceSlug)' (not in the database: run --migrate to sync \(context.configPath))")
                return ExitStatus.usage
            }
            let backfiller = Backfiller(
                store: store, enricher: context.configuration.enricher(fetcher: fetcher, logger: context.logger),
                windows: context.configuration.retention,
                languageDetectionOff: context.configuration.languageDetectionOff,
                logger: context.logger)
            let bar = ProgressBar(enabled: isatty(STDERR_FILENO) == 1)
            let stop = trap.stop
            let summary = try await backfiller.run(kinds: kinds, limit: limit, sourceSlug: sourceSlug,
                                                   shouldStop: { stop.isStopped }) { bar.show($0) }
            bar.finish()
            print(summary.line)
            await connection.close()
            return ExitStatus.success
        } catch {
            context.fail("\(error)")
            return ExitStatus.unavailable
        }
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
