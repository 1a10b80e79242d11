import ArgumentParser
import FoundationEssentials
import Glibc
import Logging
import Observability

/// The common command lines, parsed without ArgumentParser. Why by hand: ArgumentParser builds its
/// model of the command by reflection (Mirror, generic metadata, protocol-conformance scans over
/// the binary's ~6,600 conformance records) on every run: about 3.5 ms of the 9.5 ms that
/// `--help` or `--dump-feed small.xml` took from exec to exit, against a 5 ms goal. No package here
/// parses arguments without that cost.
///
/// It only recognises what it is sure of: known flags, known options followed by a value that is
/// not itself an option, plain positionals, and a bare `--help` or `-h`. Anything else (an unknown
/// or repeated option, `--opt=value`, `--`, a value that fails to convert or a combination that
/// fails `Invocation.validate()`) returns nil and goes to ArgumentParser, which then parses, or
/// explains the error, exactly as before. `QuickCommandLineTests` checks that both agree.
enum QuickCommandLine {
    enum Outcome: Equatable {
        case help
        case run(Invocation)
    }

    static func parse(_ arguments: [String], helpWidth: () -> Int = terminalWidth) -> Outcome? {
        if arguments == ["--help"] || arguments == ["-h"] {
            // The stored text is ArgumentParser's own rendering at 80 columns; other widths go to it.
            return helpWidth() == 80 ? .help : nil
        }
        var invocation = Invocation()
        // An array, not a Set: a handful of options, and no Set<String> metadata to build at start.
        var seen: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            guard argument.hasPrefix("-") else {
                invocation.inputs.append(argument)
                continue
            }
            guard argument == "--source" || !seen.contains(argument) else { return nil }
            seen.append(argument)
            if setFlag(argument, in: &invocation) { continue }
            guard index < arguments.count, !arguments[index].hasPrefix("-") else { return nil }
            let value = arguments[index]
            index += 1
            guard setOption(argument, to: value, in: &invocation) else { return nil }
        }
        do { try invocation.validate() } catch { return nil }
        return .run(invocation)
    }

    /// False when `flag` is not one of the flags.
    private static func setFlag(_ flag: String, in invocation: inout Invocation) -> Bool {
        switch flag {
        case "--once": invocation.once = true
        case "--backfill": invocation.backfill = true
        case "--prune": invocation.prune = true
        case "--migrate": invocation.migrate = true
        case "--check-config": invocation.checkConfig = true
        case "--status": invocation.statusMode = true
        case "--json": invocation.json = true
        case "--dump-feed": invocation.dumpFeed = true
        case "--dump-article": invocation.dumpArticle = true
        case "--text": invocation.textOnly = true
        case "--dry-run": invocation.dryRun = true
        default: return false
        }
        return true
    }

    /// False for an unknown option or a value ArgumentParser would not convert.
    private static func setOption(_ option: String, to value: String, in invocation: inout Invocation) -> Bool {
        switch option {
        case "--url": invocation.pageURL = value
        case "--out-dir": invocation.outputDirectory = value
        case "--files-from": invocation.filesFrom = value
        case "--source-language": invocation.sourceLanguage = value
        case "--source": invocation.sourceSlugs.append(value)
        case "--kind": invocation.backfillKind = value
        case "--limit":
            guard let limit = Int(value) else { return false }
            invocation.limit = limit
        case "--base-url": invocation.baseURL = value
        case "--content-type": invocation.contentType = value
        case "--allow-networks": invocation.allowNetworks = value
        case "--config": invocation.configPath = value
        case "--log-level":
            guard let level = Logger.Level(rawValue: value) else { return false }
            invocation.logLevel = level
        case "--log-format":
            guard let format = LogFormat(rawValue: value) else { return false }
            invocation.logFormat = format
        case "--metrics-address": invocation.metricsAddress = value
        default: return false
        }
        return true
    }

    /// The width ArgumentParser renders help for: COLUMNS, else the terminal's, else 80.
    static func terminalWidth() -> Int {
        if let columns = Invocation.environmentValue("COLUMNS").flatMap({ Int($0) }) { return columns }
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return 80
    }

    /// `PulseIngest.helpMessage(columns: 80)`, stored. `QuickCommandLineTests` fails when the two
    /// differ and prints the new text to paste here.
    static let helpText = #"""
OVERVIEW: Fetches RSS and Atom feeds into the Pulse news database.

With no mode flag, runs as the long-running service. Secrets and per-host
settings come from the environment: DATABASE_URL (libpq URI or conninfo),
PULSE_*.

Exit status: 0 success, 3 some sources failed, 4 all failed, 64 usage or
configuration error, 65 unreadable input, 69 database unavailable.

USAGE: pulse-ingest [<options>] [<path-or-url> ...]

ARGUMENTS:
  <path-or-url>           Inputs for --dump-feed / --dump-article: file paths
                          or http(s) URLs.

OPTIONS:
  --once                  Fetch the due sources once, then exit.
  --backfill              Fill missing images, bodies and languages on stored
                          rows.
  --prune                 Apply the retention windows, then exit.
  --migrate               Apply pending schema migrations and sync sources from
                          the config, then exit.
  --check-config          Validate the config, print a summary, then exit.
  --status                Print every source's health from the database, worst
                          first, then exit.
  --json                  With --status: one JSON array for scripts instead of
                          the table.
  --import-sources <file> Add and update sources from a TSV, CSV or OPML file
                          ('-': standard input), then exit.
        Format: --format, else the extension (.tsv/.tab, .csv, .opml/.xml),
        else the content (first character '<': OPML; a tab in the first line:
        TSV; else CSV). Rows are validated as feeds.yaml sources; on any
        problem nothing is written (status 64).
  --export-sources        Print every source in the database as TSV (or
                          --format), then exit.
  --format <format>       With --export-sources: tsv (default), csv or opml;
                          with --import-sources: the file's format.
  --category <slug>       With --import-sources: the category of rows that name
                          none (OPML: that sit in no folder named after one).
  --language <code>       With --import-sources: the language of rows that name
                          none.
  --dump-feed             Parse the feed documents given as arguments (paths or
                          URLs) and print JSON; no database.
        Several inputs print one JSON object per line, in order.
  --dump-article          Extract the article from the pages given as arguments
                          (paths or URLs) and print JSON; no database.
        Several inputs are processed on every core and print one JSON object
        per line, in input order.
  --url <url>             With --dump-article: the page's URL (for relative
                          links and images).
        Default for a URL input: its final URL; for a file: the page's
        canonical link or og:url, else https://localhost/.
  --text                  With --dump-article: print only the plain text.
  --out-dir <dir>         With --dump-article --text: write <basename>.txt per
                          input into this folder.
  --files-from <path>     With --dump-feed / --dump-article: read more inputs
                          from this file, one per line ('-' for standard
                          input); with --dump-article a line may add a tab and
                          that page's URL (as --url).
  --source-language <code>
                          With --dump-article: the source's configured
                          language; prints the language the service would store.
        Without it, 'language' is printed only when detected.
  --dry-run               With --prune or --import-sources: print what would
                          change, change nothing.
  --source <slug>         With --once: only this source (repeatable).
  --kind <kind>           With --backfill: image, content, language or all.
                          (default: all)
  --limit <limit>         With --backfill: at most this many rows. (default:
                          1000)
  --base-url <base-url>   With --dump-feed: resolve relative links against this
                          URL.
  --content-type <content-type>
                          With --dump-feed: the HTTP Content-Type to assume
                          (charset).
  --allow-networks <cidr[,cidr...]>
                          Exempt these ranges from the SSRF guard (intranet
                          feeds); also PULSE_ALLOW_NETWORKS.
  --config <path>         Path to feeds.yaml.
        Default: ./feeds.yaml, then /etc/pulse-ingest/feeds.yaml.
  --log-level <log-level> trace, debug, info, notice, warning, error or
                          critical. (values: trace, debug, info, notice,
                          warning, error, critical; default: info)
  --log-format <log-format>
                          text (journald-friendly, the default) or json: one
                          event per line. (values: text, json; default: text)
  --metrics-address <host:port>
                          Serve /metrics, /healthz and /readyz on this address
                          (service mode; off by default).
  -h, --help              Show help information.

"""#
}
