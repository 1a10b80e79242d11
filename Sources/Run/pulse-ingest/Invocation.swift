import PulseModel
import AddressPolicy
import ArgumentParser
import ArticleStore
import FeedParser
import FoundationEssentials
import Glibc
import HTTPFetcher
import LanguageTagger
import Logging
import Observability
import PulseConfig
import SourceImport
import Threads
import TextSupport

/// What the flags mean together: which combinations are refused, and which mode runs.
extension PulseIngest {
    func validateCombination() throws {
        let modes = [once, backfill, prune, migrate, checkConfig, dumpFeed, dumpArticle, statusMode, importSources != nil,
                     exportSources].filter { $0 }.count
        if modes > 1 {
            throw ValidationError("choose one mode: --once, --backfill, --prune, --migrate, --check-config, --status, "
                + "--import-sources, --export-sources, --dump-feed or --dump-article")
        }
        if let format {
            guard importSources != nil || exportSources else {
                throw ValidationError("--format goes with --import-sources or --export-sources")
            }
            guard SourceFileFormat(rawValue: format) != nil else {
                throw ValidationError("--format must be tsv, csv or opml, not '\(format)'")
            }
        }
        if (defaultCategory != nil || defaultLanguage != nil) && importSources == nil {
            throw ValidationError("--category and --language go with --import-sources")
        }
        if let defaultLanguage, let problem = SourceTable.languageProblem(defaultLanguage) {
            throw ValidationError("--language: \(problem)")
        }
        if json && !statusMode { throw ValidationError("--json goes with --status") }
        if (dumpFeed || dumpArticle) && inputs.isEmpty && filesFrom == nil {
            throw ValidationError("which document? give a path or URL, or --files-from")
        }
        if filesFrom != nil && !(dumpFeed || dumpArticle) { throw ValidationError("--files-from goes with --dump-feed or --dump-article") }
        if let sourceLanguage {
            guard dumpArticle else { throw ValidationError("--source-language goes with --dump-article") }
            if let problem = SourceTable.languageProblem(sourceLanguage) { throw ValidationError("--source-language: \(problem)") }
        }
        if !(dumpFeed || dumpArticle) && !inputs.isEmpty {
            throw ValidationError("unexpected argument '\(inputs[0])' (paths and URLs go with --dump-feed or --dump-article)")
        }
        if (pageURL != nil || textOnly) && !dumpArticle { throw ValidationError("--url and --text go with --dump-article") }
        if outputDirectory != nil && !(dumpArticle && textOnly) { throw ValidationError("--out-dir goes with --dump-article --text") }
        if let outputDirectory {
            var info = stat()
            guard stat(outputDirectory, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR
            else { throw ValidationError("--out-dir \(outputDirectory): not an existing folder") }
        }
        if dryRun && !(prune || importSources != nil) { throw ValidationError("--dry-run goes with --prune or --import-sources") }
        if metricsAddress != nil && modes > 0 {
            throw ValidationError("--metrics-address goes with the service mode (no mode flag)")
        }
        if let metricsAddress {
            do { _ = try ListenAddress(parsing: metricsAddress) } catch {
                throw ValidationError("--metrics-address \(metricsAddress): \(error)")
            }
        }
        if !sourceSlugs.isEmpty && !(once || backfill) {
            throw ValidationError("--source goes with --once or --backfill")
        }
        if backfill && sourceSlugs.count > 1 { throw ValidationError("--backfill takes at most one --source") }
        if !["image", "content", "language", "search", "all"].contains(backfillKind) {
            throw ValidationError("--kind must be image, content, language, search or all, not '\(backfillKind)'")
        }
        if backfillKind == "search" && !sourceSlugs.isEmpty {
            throw ValidationError("--kind search fills every row; it takes no --source")
        }
        if let limit, limit < 1 { throw ValidationError("--limit must be at least 1") }
        if limit != nil && !(backfill || statusMode) { throw ValidationError("--limit goes with --backfill or --status") }
        if allSources && !statusMode { throw ValidationError("--all goes with --status") }
        if allSources && limit != nil { throw ValidationError("--all and --limit: choose one") }
        if (baseURL != nil || contentType != nil) && !dumpFeed {
            throw ValidationError("--base-url and --content-type go with --dump-feed")
        }
    }

    /// Logging, the SSRF exemptions and the inputs, as every mode starts.
    private func start() throws -> (logger: Logger, networks: [CIDR], inputs: [String], pageURLs: [String?]) {
        let level = Self.environmentValue("PULSE_LOG_LEVEL").flatMap(Logger.Level.init(rawValue:)) ?? logLevel
        LoggingSetup.bootstrap(format: logFormat, level: level, runID: Self.newRunID(),
                               options: .detect(journalStream: Self.environmentValue("JOURNAL_STREAM")))
        let logger = Logger(label: "pulse-ingest")
        let networks = try allowedNetworks(logger: logger)
        var inputs = inputs
        var pageURLs: [String?] = []
        if let filesFrom {
            let listed = try Self.readInputList(filesFrom)
            if dumpArticle {
                let split = listed.map(Self.splitListedURL)
                pageURLs = Array(repeating: nil, count: inputs.count) + split.map(\.url)
                inputs += split.map(\.input)
            } else {
                inputs += listed
            }
        }
        return (logger, networks, inputs, pageURLs)
    }

    /// A `--dump-article` list line "PATH<TAB>URL" gives that page its own base URL, as `--url`
    /// does for all of them: a corpus of saved pages is extracted by one process, each page as at
    /// its address.
    static func splitListedURL(_ line: String) -> (input: String, url: String?) {
        guard let tab = line.firstIndex(of: "\t") else { return (line, nil) }
        let url = TextScan.trimming(line[line.index(after: tab)...], while: TextScan.isBlank)
        return (TextScan.trimming(line[..<tab], while: TextScan.isBlank), url.isEmpty ? nil : url)
    }

    private func dumpFeedMode(_ inputs: [String], networks: [CIDR]) throws -> DumpFeedMode {
        DumpFeedMode(inputs: inputs, baseURL: baseURL, contentType: contentType, options: FeedParserOptions(),
                     fetcherConfiguration: try dumpFetcherConfiguration(inputs, networks: networks))
    }

    /// The dump modes fetch as `--once` does (`PULSE_USER_AGENT`, `PULSE_RESOLVE`, `PULSE_CA_FILE`,
    /// `PULSE_CA_PATH`, `--allow-networks`), on the built-in `fetch:` settings, or on the `fetch:`
    /// section of a `--config` given explicitly (timeouts, caps, user agent: to see a feed as the
    /// service fetches it). They need no database and look for no feeds.yaml of their own accord.
    /// Files alone fetch nothing, so then nothing more is read.
    private func dumpFetcherConfiguration(_ inputs: [String], networks: [CIDR]) throws -> FetcherConfiguration {
        guard inputs.contains(where: DumpFeedMode.isURL) else { return FetcherConfiguration() }
        do {
            let environment = try FetchEnvironment(lookup: Self.environmentValue)
            let configuration = try configPath.map { try ConfigLoader.load(path: $0, allowedNetworks: networks) }
                ?? PulseConfiguration()
            return configuration.fetcherConfiguration(environment: environment, allowedNetworks: networks)
        } catch {
            RunContext.printError("\(error)")
            throw ExitCode(ExitStatus.usage)
        }
    }

    func runMode() async throws {
        let (logger, networks, inputs, pageURLs) = try start()
        let status: Int32
        if dumpFeed {
            let mode = try dumpFeedMode(inputs, networks: networks)
            // Files alone are parsed several at once on threads of their own, off the pool.
            status = inputs.contains(where: DumpFeedMode.isURL)
                ? await mode.run() : try await OffPool.run { mode.runFiles() }
        } else if dumpArticle {
            status = await DumpArticleMode(
                inputs: inputs, pageURL: pageURL, pageURLs: pageURLs, textOnly: textOnly, outputDirectory: outputDirectory,
                sourceLanguage: sourceLanguage,
                fetcherConfiguration: try dumpFetcherConfiguration(inputs, networks: networks)).run()
        } else if exportSources {
            let format = format.flatMap(SourceFileFormat.init(rawValue:)) ?? .tsv
            status = await ExportSourcesMode(context: try RunContext(withoutConfig: logger), format: format).run()
        } else {
            status = await configuredMode(try RunContext(configPath: configPath, logger: logger, allowedNetworks: networks))
        }
        if status != 0 { throw ExitCode(status) }
    }

    /// The modes that read feeds.yaml.
    private func configuredMode(_ context: RunContext) async -> Int32 {
        let networks = context.allowedNetworks
        if checkConfig {
            return CheckConfigMode(context: context).run()
        } else if migrate {
            return await MigrateMode(context: context).run()
        } else if once {
            return await OnceMode(context: context, slugs: sourceSlugs,
                                  fetcherConfiguration: context.configuration.fetcherConfiguration(
                                      environment: context.environment.fetch, allowedNetworks: networks)).run()
        } else if statusMode {
            return await StatusMode(context: context, json: json, limit: allSources ? nil : limit ?? StatusMode.defaultLimit).run()
        } else if let importSources {
            return await ImportSourcesMode(context: context, path: importSources,
                                           format: format.flatMap(SourceFileFormat.init(rawValue:)),
                                           defaultCategory: defaultCategory, defaultLanguage: defaultLanguage,
                                           dryRun: dryRun).run()
        } else if prune {
            return await PruneMode(context: context, dryRun: dryRun).run()
        } else if backfill {
            let pages = backfillKind == "search" ? nil : BackfillMode.Pages(
                kinds: backfillKind == "all" ? Set(BackfillKind.allCases) : [BackfillKind(rawValue: backfillKind)!],
                limit: limit ?? 1000, sourceSlug: sourceSlugs.first,
                fetcherConfiguration: context.configuration.fetcherConfiguration(
                    environment: context.environment.fetch, allowedNetworks: networks))
            return await BackfillMode(context: context, pages: pages).run()
        }
        return await DaemonMode(context: context, allowedNetworks: networks,
                                metricsAddress: metricsAddress.flatMap { try? ListenAddress(parsing: $0) }).run()
    }

    /// `--allow-networks`, else PULSE_ALLOW_NETWORKS: the only way to exempt ranges from the SSRF
    /// guard, so it is logged loudly.
    func allowedNetworks(logger: Logger) throws -> [CIDR] {
        guard let text = allowNetworks ?? Self.environmentValue("PULSE_ALLOW_NETWORKS"),
              !text.isEmpty else { return [] }
        guard let networks = CIDR.parseList(text) else {
            throw ValidationError("--allow-networks / PULSE_ALLOW_NETWORKS: '\(text)' is not a comma-separated list of CIDRs")
        }
        logger.warning("SSRF guard relaxed by operator opt-in: fetching from these networks is allowed",
                       metadata: ["networks": "\(networks.map(\.description).joined(separator: ","))"])
        return networks
    }

    /// `--files-from`: one input per line, blank lines skipped; "-" reads standard input.
    static func readInputList(_ path: String) throws -> [String] {
        let bytes: [UInt8]
        switch readWholeFile(path == "-" ? "/dev/stdin" : path) {
        case .success(let read): bytes = read
        case .failure(let failure): throw ValidationError("--files-from \(path): \(failure)")
        }
        return String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isNewline)
            .map { TextScan.trimming($0, while: TextScan.isBlank) }.filter { !$0.isEmpty }
    }

    /// Eight hex digits that tie together the lines of one run.
    static func newRunID() -> String {
        String(UInt32.random(in: .min ... .max), radix: 16)
    }

    static func environmentValue(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }
}
