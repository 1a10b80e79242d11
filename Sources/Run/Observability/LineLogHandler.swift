import Glibc
import FoundationEssentials
import Logging
import Synchronization

/// Where finished lines go. Each call receives one line without its newline.
public struct LogOutput: Sendable {
    public let write: @Sendable (String) -> Void

    public init(_ write: @escaping @Sendable (String) -> Void) {
        self.write = write
    }

    /// stderr, one `write(2)` per line under a process-wide lock so lines from different
    /// threads never interleave.
    public static let standardError = LogOutput { line in StandardErrorWriter.write(line) }
}

enum StandardErrorWriter {
    private static let lock = Mutex(())

    static func write(_ line: String) {
        var bytes = Array(line.utf8)
        bytes.append(UInt8(ascii: "\n"))
        lock.withLock { _ in
            var offset = 0
            while offset < bytes.count {
                let written = bytes.withUnsafeBytes { raw in
                    Glibc.write(STDERR_FILENO, raw.baseAddress! + offset, raw.count - offset)
                }
                if written < 0 && errno == EINTR { continue }
                if written <= 0 { return }  // stderr gone: drop the line rather than spin.
                offset += written
            }
        }
    }
}

/// A swift-log handler writing one event per line in `text` or `json` form (see ``LogFormat``).
public struct LineLogHandler: LogHandler {
    public let label: String
    public var formatter: LogLineFormatter
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    /// Added to every line as `run_id`, below all other metadata. Kept apart from `metadata` so
    /// a handler that never logs never builds a metadata dictionary: the first one instantiates
    /// its generic type at run time (a scan of every conformance record in the binary), which
    /// was a tenth of the start-up of `--dump-feed`.
    private let runID: String?
    private let output: LogOutput
    private let clock: @Sendable () -> Date

    public init(label: String, format: LogFormat, level: Logger.Level = .info,
                options: LogOptions = LogOptions(), metadata: Logger.Metadata = [:],
                metadataProvider: Logger.MetadataProvider? = nil, runID: String? = nil,
                output: LogOutput = .standardError,
                clock: @escaping @Sendable () -> Date = { Date() }) {
        self.label = label
        self.runID = runID
        self.formatter = LogLineFormatter(format: format, options: options)
        self.logLevel = level
        self.metadata = metadata
        self.metadataProvider = metadataProvider
        self.output = output
        self.clock = clock
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        // Precedence: run ID < handler metadata < provider (task-local context) < the call's own metadata.
        var merged = metadata
        if let runID, merged["run_id"] == nil {
            merged["run_id"] = .string(runID)
        }
        if let provided = metadataProvider?.get() {
            merged.merge(provided) { _, new in new }
        }
        if let own = event.metadata {
            merged.merge(own) { _, new in new }
        }
        if let error = event.error, merged["error"] == nil {
            merged["error"] = .string(String(describing: error))
        }
        output.write(formatter.line(timestamp: clock(), level: event.level, label: label,
                                    message: event.message.description, metadata: merged))
    }
}
