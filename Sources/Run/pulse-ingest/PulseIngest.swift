import ArgumentParser
import FoundationEssentials
import Glibc
import Logging
import Observability

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

    @Flag(name: .customLong("status"), help: ArgumentHelp(
        "Print the sources' health from the database, worst first (the 50 worst unless --limit or --all), then exit."))
    var statusMode = false

    @Flag(name: .customLong("json"), help: "With --status: one JSON array for scripts instead of the table, streamed.")
    var json = false

    @Flag(name: .customLong("all"), help: "With --status: every source, streamed as it is read.")
    var allSources = false

    @Option(name: .customLong("import-sources"), help: ArgumentHelp(
        "Add and update sources from a TSV, CSV or OPML file ('-': standard input), then exit.",
        discussion: """
            Format: --format, else the extension (.tsv/.tab, .csv, .opml/.xml), else the content \
            (first character '<': OPML; a tab in the first line: TSV; else CSV). Rows are \
            validated as feeds.yaml sources; on any problem nothing is written (status 64). \
            At most 100,000 rows a file (a larger one is refused unread, status 65: split it).
            """,
        valueName: "file"))
    var importSources: String?

    @Flag(name: .customLong("export-sources"), help: "Print every source in the database as TSV (or --format), then exit.")
    var exportSources = false

    @Option(name: .customLong("format"), help: ArgumentHelp(
        "With --export-sources: tsv (default), csv or opml; with --import-sources: the file's format.",
        valueName: "format"))
    var format: String?

    @Option(name: .customLong("category"), help: ArgumentHelp(
        "With --import-sources: the category of rows that name none (OPML: that sit in no folder named after one).",
        valueName: "slug"))
    var defaultCategory: String?

    @Option(name: .customLong("language"), help: ArgumentHelp(
        "With --import-sources: the language of rows that name none.", valueName: "code"))
    var defaultLanguage: String?

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
        "With --dump-feed / --dump-article: read more inputs from this file, one per line ('-' for standard input); "
            + "with --dump-article a line may add a tab and that page's URL (as --url).",
        valueName: "path"))
    var filesFrom: String?

    @Option(name: .customLong("source-language"), help: ArgumentHelp(
        "With --dump-article: the source's configured language; prints the language the service would store.",
        discussion: "Without it, 'language' is printed only when detected.", valueName: "code"))
    var sourceLanguage: String?

    @Flag(name: .customLong("dry-run"), help: "With --prune or --import-sources: print what would change, change nothing.")
    var dryRun = false

    @Option(name: .customLong("source"), help: ArgumentHelp(
        "With --once: only this source (repeatable).", valueName: "slug"))
    var sourceSlugs: [String] = []

    @Option(name: .customLong("kind"), help: ArgumentHelp(
        "With --backfill: image, content, language, search (per-language search vectors) or all (not search).", valueName: "kind"))
    var backfillKind: String = "all"

    @Option(name: .customLong("limit"), help: "With --backfill: at most this many rows (1000). With --status: the N worst sources (50).")
    var limit: Int?

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

    /// Checks that the flags go together (`Invocation.swift`), before anything runs.
    func validate() throws { try validateCombination() }

    /// Runs the mode, then ends the process the one way every mode ends (`ProcessEnd`): an exit
    /// status from the mode is the process's; other errors are explained by ArgumentParser.
    func run() async throws {
        do {
            try await runMode()
        } catch let code as ExitCode {
            ProcessEnd.finish(code.rawValue)
        }
        ProcessEnd.finish(ExitStatus.success)
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
extension LogFormat: ExpressibleByArgument {}
