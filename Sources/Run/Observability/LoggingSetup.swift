import Logging

/// Process-wide logging setup for the daemon's entry point.
public enum LoggingSetup {
    /// Installs ``LineLogHandler`` for every `Logger`, tagging each line with `run_id`.
    /// swift-log allows this once per process: call it first thing in `main`.
    public static func bootstrap(format: LogFormat, level: Logger.Level, runID: String,
                                 options: LogOptions = LogOptions()) {
        LoggingSystem.bootstrap({ label, provider in
            makeHandler(label: label, format: format, level: level, runID: runID, options: options,
                        metadataProvider: provider)
        }, metadataProvider: nil)
    }

    /// The handler `bootstrap` installs; separate so tests can capture output without the global.
    public static func makeHandler(label: String, format: LogFormat, level: Logger.Level, runID: String,
                                   options: LogOptions = LogOptions(),
                                   metadataProvider: Logger.MetadataProvider? = nil,
                                   output: LogOutput = .standardError) -> LineLogHandler {
        LineLogHandler(label: label, format: format, level: level, options: options,
                       metadataProvider: metadataProvider, runID: runID,
                       output: output)
    }
}

extension LogOptions {
    /// Under systemd (stderr connected to the journal, signalled by `JOURNAL_STREAM`) journald
    /// adds its own timestamp and understands `<N>` priority prefixes, so use those instead.
    public static func detect(journalStream: String?) -> LogOptions {
        let underJournal = !(journalStream ?? "").isEmpty
        return LogOptions(includeTimestamp: !underJournal, journalPriorityPrefix: underJournal)
    }
}
