import AddressPolicy
import Enrichment
import FeedParser
import HTTPFetcher
import Logging
import PulseConfig
import PulseModel

/// The config's view of sources and categories, as the store synchronises them.
extension PulseConfiguration {
    var categoryDefinitions: [CategoryDefinition] {
        // The contract seeds display_order 1...10; the config counts positions from 0.
        categories.map { CategoryDefinition(slug: $0.slug, name: $0.name, displayOrder: $0.displayOrder + 1) }
    }

    var sourceDefinitions: [SourceDefinition] { sources }
}

extension PulseConfiguration {
    /// Sources whose `language_detection: off` pins the configured language.
    var languageDetectionOff: Set<String> { Set(sources.filter { !$0.languageDetection }.map(\.slug)) }

    var parserOptions: FeedParserOptions {
        FeedParserOptions(maxItems: fetch.maxItemsPerFeed, maxContentLength: defaults.maxContentLength)
    }

    /// One page fetch per new article: og:image, readable body, language.
    func enricher(fetcher: HTTPFetcher, logger: Logger) -> Enricher {
        var settings = EnrichmentSettings()
        settings.concurrency = enrichment.concurrency
        settings.perSourceBudget = .seconds(enrichment.perSourceBudgetSeconds)
        settings.pageBodyLimit = fetch.pageBodyLimitBytes
        settings.maxContentLength = defaults.maxContentLength
        return Enricher(fetcher: fetcher, settings: settings, logger: logger)
    }

    /// The fetcher every mode that fetches uses: the `fetch:` section, the environment's
    /// `PULSE_USER_AGENT`, `PULSE_RESOLVE`, `PULSE_CA_FILE` and `PULSE_CA_PATH`, and the SSRF
    /// exemptions (`--allow-networks` / `PULSE_ALLOW_NETWORKS`).
    func fetcherConfiguration(environment: FetchEnvironment, allowedNetworks: [CIDR]) -> FetcherConfiguration {
        var configuration = FetcherConfiguration(fetch)
        configuration.resolve = environment.resolve
        configuration.caFile = environment.caFile
        configuration.caPath = environment.caPath
        configuration.userAgent = environment.userAgent ?? fetch.userAgent
        configuration.allowedNetworks = allowedNetworks
        return configuration
    }
}
