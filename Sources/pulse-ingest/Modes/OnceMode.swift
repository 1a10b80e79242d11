import ArticleStore
import FeedParser
import HTTPFetcher
import Ingestion
import Postgres
import PulseConfig

/// `--once [--source SLUG ...]`: one pass over the due active sources with a closed circuit.
struct OnceMode {
    let context: RunContext
    let slugs: [String]
    let fetcherConfiguration: FetcherConfiguration

    func run() async -> Int32 {
        guard let conninfo = context.environment.databaseURL else {
            context.fail("DATABASE_URL is not set (a libpq URI or conninfo string)")
            return ExitStatus.usage
        }
        let trap = SignalTrap()
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(settings: context.connectionSettings(conninfo),
                                                              logger: context.logger)
        } catch {
            context.fail("\(error)")
            return ExitStatus.unavailable
        }
        let store = ArticleStore(connection: connection)
        let fetcher = HTTPFetcher(configuration: fetcherConfiguration, logger: context.logger)
        defer { fetcher.shutdown() }
        do {
            for slug in slugs where try await store.source(slug: slug) == nil {
                context.fail("unknown source slug '\(slug)' (not in the database: run --migrate to sync \(context.configPath))")
                return ExitStatus.usage
            }
            let sources = try await store.dueSources(slugs: slugs.isEmpty ? nil : slugs)
            var pass = IngestPass(store: store, fetcher: fetcher, parserOptions: context.configuration.parserOptions,
                                  retentionDays: context.configuration.retention.articlesDays,
                                  concurrency: context.configuration.fetch.maxConcurrentFetches, logger: context.logger)
            pass.feedBodyLimit = context.configuration.fetch.feedBodyLimitBytes
            pass.languageDetectionOff = context.configuration.languageDetectionOff
            if context.configuration.enrichment.enabled {
                pass.enricher = context.configuration.enricher(fetcher: fetcher, logger: context.logger)
            }
            let summary = try await pass.run(sources: sources, stop: trap.stop) { outcome in
                print(outcome.line)
            }
            print(summary.line)
            if let notice = summary.allFailedNotice { print(notice) }
            await connection.close()
            if summary.outcomes.isEmpty { return ExitStatus.success }
            if summary.failedCount == summary.outcomes.count { return ExitStatus.allFailed }
            return summary.failedCount > 0 ? ExitStatus.someFailed : ExitStatus.success
        } catch {
            context.fail("\(error)")
            return ExitStatus.unavailable
        }
    }
}
