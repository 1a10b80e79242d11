import AddressPolicy
import ArgumentParser
import ArticleStore
import FeedParser
import Foundation
import Logging
import Observability
import PulseConfig

/// The command line. Modes are flags, as operators type them; wiring lives in `Modes/`.
@main
struct PulseIngest: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pulse-ingest",
        abstract: "Fetches RSS and Atom feeds into the Pulse news database.",
        discussion: """
            With no mode flag, runs as the long-running service. Secrets and per-host settings come \
            from the environment: DATABASE_URL (libpq URI or conninfo), PULSE_*.

            Exit status: 0 success, 3 some sources failed, 4 all failed, 64 usage or configuration \
            error, 65 unreadable input, 69 database unavailable.
            """)

    @Flag(name: .customLong("once"), help: "Fetch the due sources once, then exit.")
    var once = false

    @Flag(name: .customLong("backfill"), help: "Fill missing images, bodies and languages on stored rows.")
    var backfill = false

    @Flag(name: .customLong("prune"), help: "Apply the retention windows, then exit.")
    var prune = false

    @Flag(name: .customLong("migrate"), help: "Apply pending schema migrations and sync sources from the config, then exit.")
    var migrate = false

    @Flag(name: .customLong("check-config"), help: "Validate the config, print a summary, then exit.")
    var checkConfig = false

    @Flag(name: .customLong("status"), help: "Print every source's health from the database, worst first, then exit.")
    var statusMode = false

    @Flag(name: .customLong("json"), help: "With --status: one JSON array for scripts instead of the table.")
    var json = false

    @Flag(name: .customLong("dump-feed"), help: ArgumentHelp(
        "Parse the feed documents given as arguments (paths or URLs) and print JSON; no database.",
        discussion: "Several inputs print one JSON object per line, in order."))
    var dumpFeed = false

    @Flag(name: .customLong("dump-article"), help: ArgumentHelp(
        "Extract the article from the pages given as arguments (paths or URLs) and print JSON; no database.",
        discussion: "Several inputs are processed on every core and print one JSON object per line, in input order."))
    var dumpArticle = false

    @Argument(help: ArgumentHelp("Inputs for --dump-feed / --dump-article: file paths or http(s) URLs.",
                                 valueName: "path-or-url"))
    var inputs: [String] = []

    @Option(name: .customLong("url"), help: ArgumentHelp(
        "With --dump-article: the page's URL (for relative links and images).",
        discussion: "Default for a URL input: its final URL; for a file: the page's canonical link or og:url, else https://localhost/."))
    var pageURL: String?

    @Flag(name: .customLong("text"), help: "With --dump-article: print only the plain text.")
    var textOnly = false

    @Option(name: .customLong("out-dir"), help: ArgumentHelp(
        "With --dump-article --text: write <basename>.txt per input into this folder.", valueName: "dir"))
    var outputDirectory: String?

    @Option(name: .customLong("files-from"), help: ArgumentHelp(
        "With --dump-feed / --dump-article: read more inputs from this file, one per line ('-' for standard input).",
        valueName: "path"))
    var filesFrom: String?

    @Option(name: .customLong("source-language"), help: ArgumentHelp(
        "With --dump-article: the source's configured language; prints the language the service would store.",
        discussion: "Without it, 'language' is printed only when detected.", valueName: "code"))
    var sourceLanguage: String?

    @Flag(name: .customLong("dry-run"), help: "With --prune: print what would change, change nothing.")
    var dryRun = false

    @Option(name: .customLong("source"), help: ArgumentHelp(
        "With --once: only this source (repeatable).", valueName: "slug"))
    var sourceSlugs: [String] = []

    @Option(name: .customLong("kind"), help: ArgumentHelp(
        "With --backfill: image, content, language or all (default).", valueName: "kind"))
    var backfillKind: String = "all"

    @Option(name: .customLong("limit"), help: "With --backfill: at most this many rows (default 1000).")
    var limit: Int = 1000

    @Option(name: .customLong("base-url"), help: "With --dump-feed: resolve relative links against this URL.")
    var baseURL: String?

    @Option(name: .customLong("content-type"), help: "With --dump-feed: the HTTP Content-Type to assume (charset).")
    var contentType: String?

    @Option(name: .customLong("allow-networks"), help: ArgumentHelp(
        "Exempt these ranges from the SSRF guard (intranet feeds); also PULSE_ALLOW_NETWORKS.",
        valueName: "cidr[,cidr...]"))
    var allowNetworks: String?

    @Option(name: .customLong("config"), help: ArgumentHelp(
        "Path to feeds.yaml.", discussion: "Default: ./feeds.yaml, then /etc/pulse-ingest/feeds.yaml.",
        valueName: "path"))
    var configPath: String?

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel: Logger.Level = .info

    @Option(name: .customLong("log-format"), help: "text (journald-friendly, the default) or json: one event per line.")
    var logFormat: LogFormat = .text

    @Option(name: .customLong("metrics-address"), help: ArgumentHelp(
        "Serve /metrics, /healthz and /readyz on this address (service mode; off by default).",
        valueName: "host:port"))
    var metricsAddress: String?

    func validate() throws {
        let modes = [once, backfill, prune, migrate, checkConfig, dumpFeed, dumpArticle, statusMode].filter { $0 }.count
        if modes > 1 {
            throw ValidationError("choose one mode: --once, --backfill, --prune, --migrate, --check-config, --status, "
                + "--dump-feed or --dump-article")
        }
        if json && !statusMode { throw ValidationError("--json goes with --status") }
        if (dumpFeed || dumpArticle) && inputs.isEmpty && filesFrom == nil {
            throw ValidationError("which document? give a path or URL, or --files-from")
        }
        if filesFrom != nil && !(dumpFeed || dumpArticle) { throw ValidationError("--files-from goes with --dump-feed or --dump-article") }
        if let sourceLanguage {
            guard dumpArticle else { throw ValidationError("--source-language goes with --dump-article") }
            guard sourceLanguage.count == 2, sourceLanguage.allSatisfy({ $0.isASCII && $0.isLowercase }) else {
                throw ValidationError("--source-language \(sourceLanguage): expected a two-letter ISO 639-1 code such as 'pt'")
            }
        }
        if !(dumpFeed || dumpArticle) && !inputs.isEmpty {
            throw ValidationError("unexpected argument '\(inputs[0])' (paths and URLs go with --dump-feed or --dump-article)")
        }
        if (pageURL != nil || textOnly) && !dumpArticle { throw ValidationError("--url and --text go with --dump-article") }
        if outputDirectory != nil && !(dumpArticle && textOnly) { throw ValidationError("--out-dir goes with --dump-article --text") }
        if let outputDirectory {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: outputDirectory, isDirectory: &isDirectory), isDirectory.boolValue
            else { throw ValidationError("--out-dir \(outputDirectory): not an existing folder") }
        }
        if dryRun && !prune { throw ValidationError("--dry-run goes with --prune") }
        if metricsAddress != nil && (once || backfill || prune || migrate || checkConfig || dumpFeed || dumpArticle || statusMode) {
            throw ValidationError("--metrics-address goes with the service mode (no mode flag)")
        }
        if let metricsAddress {
            do { _ = try MetricsAddress(parsing: metricsAddress) } catch {
                throw ValidationError("--metrics-address \(metricsAddress): \(error)")
            }
        }
        if !sourceSlugs.isEmpty && !(once || backfill) {
            throw ValidationError("--source goes with --once or --backfill")
        }
        if backfill && sourceSlugs.count > 1 { throw ValidationError("--backfill takes at most one --source") }
        if !["image", "content", "language", "all"].contains(backfillKind) {
            throw ValidationError("--kind must be image, content, language or all, not '\(backfillKind)'")
        }
        if limit < 1 { throw ValidationError("--limit must be at least 1") }
        if (baseURL != nil || contentType != nil) && !dumpFeed {
            throw ValidationError("--base-url and --content-type go with --dump-feed")
        }
    }

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let level = environment["PULSE_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? logLevel
        LoggingSetup.bootstrap(format: logFormat, level: level, runID: Self.newRunID(),
                               options: .detect(environment: environment))
        let logger = Logger(label: "pulse-ingest")
        let networks = try allowedNetworks(logger: logger)
        var inputs = inputs
        if let filesFrom { inputs += try Self.readInputList(filesFrom) }
        if dumpFeed {
            let status = await DumpFeedMode(
                inputs: inputs, baseURL: baseURL, contentType: contentType, options: FeedParserOptions(),
                fetcherConfiguration: PulseConfiguration().fetcherConfiguration(
                    userAgent: nil, allowedNetworks: networks)).run()
            if status != 0 { throw ExitCode(status) }
            return
        }
        if dumpArticle {
            let status = await DumpArticleMode(
                inputs: inputs, pageURL: pageURL, textOnly: textOnly, outputDirectory: outputDirectory,
                sourceLanguage: sourceLanguage,
                fetcherConfiguration: PulseConfiguration().fetcherConfiguration(userAgent: nil, allowedNetworks: networks)).run()
            if status != 0 { throw ExitCode(status) }
            return
        }
        let context = try RunContext(configPath: configPath, logger: logger)

        let status: Int32
        if checkConfig {
            status = CheckConfigMode(context: context).run()
        } else if migrate {
            status = await MigrateMode(context: context).run()
        } else if once {
            status = await OnceMode(context: context, slugs: sourceSlugs,
                                    fetcherConfiguration: context.configuration.fetcherConfiguration(
                                        userAgent: context.environment.userAgent, allowedNetworks: networks,
                                        resolve: context.environment.resolve)).run()
        } else if statusMode {
            status = await StatusMode(context: context, json: json).run()
        } else if prune {
            status = await PruneMode(context: context, dryRun: dryRun).run()
        } else if backfill {
            let kinds: Set<BackfillKind> = backfillKind == "all"
                ? Set(BackfillKind.allCases) : [BackfillKind(rawValue: backfillKind)!]
            status = await BackfillMode(context: context, kinds: kinds, limit: limit, sourceSlug: sourceSlugs.first,
                                        fetcherConfiguration: context.configuration.fetcherConfiguration(
                                            userAgent: context.environment.userAgent, allowedNetworks: networks,
                                        resolve: context.environment.resolve)).run()
        } else {
            status = await DaemonMode(context: context, allowedNetworks: networks,
                                      metricsAddress: metricsAddress.flatMap { try? MetricsAddress(parsing: $0) }).run()
        }
        if status != 0 { throw ExitCode(status) }
    }

    /// `--allow-networks`, else PULSE_ALLOW_NETWORKS: the only way to exempt ranges from the SSRF
    /// guard, so it is logged loudly.
    func allowedNetworks(logger: Logger) throws -> [CIDR] {
        guard let text = allowNetworks ?? ProcessInfo.processInfo.environment["PULSE_ALLOW_NETWORKS"],
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
        let data: Data?
        if path == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            data = FileManager.default.contents(atPath: path)
        }
        guard let data else { throw ValidationError("--files-from \(path): cannot read the file") }
        return String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// AsyncParsableCommand's own entry point, with many positional inputs kept away from the
    /// parser (`PositionalSplit` says why).
    static func main() async {
        let split = PositionalSplit.split(Array(CommandLine.arguments.dropFirst()))
        do {
            var command = try parseAsRoot(split.parse)
            if var pulse = command as? PulseIngest, !split.extra.isEmpty {
                pulse.inputs += split.extra
                command = pulse
            }
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }

    /// Eight hex digits that tie together the lines of one run.
    static func newRunID() -> String {
        String(UInt32.random(in: .min ... .max), radix: 16)
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
extension LogFormat: ExpressibleByArgument {}
