import ArgumentParser
import Foundation
import Logging

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

    @Option(name: .customLong("config"), help: ArgumentHelp(
        "Path to feeds.yaml.", discussion: "Default: ./feeds.yaml, then /etc/pulse-ingest/feeds.yaml.",
        valueName: "path"))
    var configPath: String?

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel: Logger.Level = .info

    func validate() throws {
        let modes = [once, backfill, prune, migrate, checkConfig].filter { $0 }.count
        if modes > 1 {
            throw ValidationError("choose one mode: --once, --backfill, --prune, --migrate or --check-config")
        }
    }

    func run() async throws {
        let level = logLevel
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "pulse-ingest")
        let context = try RunContext(configPath: configPath, logger: logger)

        let status: Int32
        if checkConfig {
            status = CheckConfigMode(context: context).run()
        } else if migrate {
            status = await MigrateMode(context: context).run()
        } else {
            let mode = once ? "--once" : backfill ? "--backfill" : prune ? "--prune" : "the service mode"
            context.fail("\(mode) is not yet available in this build")
            status = ExitStatus.usage
        }
        if status != 0 { throw ExitCode(status) }
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
