import ArticleStore
import FeedParser
import FoundationEssentials
import Glibc
import HTTPFetcher
import Ingestion
import Postgres
import PulseConfig

/// `--once [--source SLUG ...]`: one pass over the due active sources with a closed circuit.
/// It claims them with the service's lease (so a running service and `--once` never fetch the same
/// source at once), prints a SKIP line for each due source another process holds, renews its
/// leases while the pass runs and releases them when it ends.
struct OnceMode {
    let context: RunContext
    let slugs: [String]
    let fetcherConfiguration: FetcherConfiguration

    func run() async -> Int32 {
        await Lifecycle.runOnce(logger: context.logger) { stop in await run(stop: stop) }
    }

    /// The mode's work; the first SIGINT/SIGTERM sets `stop` (`Lifecycle`).
    func run(stop: StopSignal) async -> Int32 {
        guard let conninfo = context.requiredDatabaseURL() else { return ExitStatus.usage }
        return await context.withConnection(context.connectionSettings(conninfo)) { connection in
            let store = ArticleStore(connection: connection)
            let fetcher = HTTPFetcher(configuration: fetcherConfiguration, logger: context.logger)
            defer { fetcher.shutdown() }
            for slug in slugs where try await store.source(slug: slug) == nil {
                context.fail("unknown source slug '\(slug)' (not in the database: run --migrate to sync \(context.configPath))")
                return ExitStatus.usage
            }
            let workerID = "\(ProcessInfo.processInfo.hostName):\(getpid()):once"
            let lease = ArticleStore.standardLease
            let sources = try await store.claimDueSources(workerID: workerID, limit: Int(Int32.max), lease: lease,
                                                          slugs: slugs.isEmpty ? nil : slugs)
            for holder in try await store.leasedElsewhere(workerID: workerID, slugs: slugs.isEmpty ? nil : slugs) {
                print(Self.skipLine(holder))
            }
            let renewal = Task {
                while true {
                    do { try await Task.sleep(for: lease / 3) } catch { return }
                    _ = try? await store.renewLeases(workerID: workerID, lease: lease)
                }
            }
            var pass = IngestPass(store: store, fetcher: fetcher, parserOptions: context.configuration.parserOptions,
                                  retentionDays: context.configuration.retention.articlesDays,
                                  concurrency: context.configuration.fetch.maxConcurrentFetches, logger: context.logger)
            pass.feedBodyLimit = context.configuration.fetch.feedBodyLimitBytes
            pass.languageDetectionOff = context.configuration.languageDetectionOff
            if context.configuration.enrichment.enabled {
                pass.enricher = context.configuration.enricher(fetcher: fetcher, logger: context.logger)
            }
            var summary = PassSummary()
            var passError: (any Error)?
            do {
                summary = try await pass.run(sources: sources, stop: stop) { print($0.line) }
            } catch {
                passError = error
            }
            renewal.cancel()
            await renewal.value
            // Given back after a failed pass too; if even that fails, they expire with the lease.
            _ = try? await store.releaseLeases(workerID: workerID)
            if let passError { throw passError }
            print(summary.line)
            if let notice = summary.allFailedNotice { print(notice) }
            if summary.outcomes.isEmpty { return ExitStatus.success }
            if summary.failedCount == summary.outcomes.count { return ExitStatus.allFailed }
            return summary.failedCount > 0 ? ExitStatus.someFailed : ExitStatus.success
        }
    }

    /// `SKIP  slug: leased by host:pid until 2026-01-01T12:00:00Z`, in the column layout of the
    /// OK/FAIL lines.
    static func skipLine(_ holder: LeaseHolder) -> String {
        let until = holder.until.map { " until " + $0.formatted(.iso8601) } ?? ""
        return "SKIP  \(holder.slug): leased by \(holder.owner)\(until)"
    }
}
