import Glibc
import FoundationEssentials
import Logging
import TextSupport

/// Log line shape on stderr.
public enum LogFormat: String, Sendable, CaseIterable {
    /// `<ts> <level> [label] message key=value ...`: readable in `journalctl`.
    case text
    /// One JSON object per line: ts, level, label, msg, then the flattened metadata as strings.
    case json
}

public struct LogOptions: Sendable, Equatable {
    /// journald stamps each line itself; turn this off there to avoid a second timestamp.
    public var includeTimestamp: Bool
    /// Prefix lines with `<N>` (sd-daemon(3)) so journald records the syslog priority.
    public var journalPriorityPrefix: Bool
    public var maxValueBytes: Int
    public var maxMessageBytes: Int

    public init(includeTimestamp: Bool = true, journalPriorityPrefix: Bool = false,
                maxValueBytes: Int = 2048, maxMessageBytes: Int = 8192) {
        self.includeTimestamp = includeTimestamp
        self.journalPriorityPrefix = journalPriorityPrefix
        self.maxValueBytes = maxValueBytes
        self.maxMessageBytes = maxMessageBytes
    }
}

/// Renders one event as one line (without the trailing newline). Pure, so tests can pin exact output.
public struct LogLineFormatter: Sendable {
    public var format: LogFormat
    public var options: LogOptions

    static let reservedJSONKeys: Set<String> = ["ts", "level", "label", "msg"]
    static let maxNestingDepth = 4

    public func line(timestamp: Date, level: Logger.Level, label: String,
                     message: String, metadata: Logger.Metadata) -> String {
        let cleanLabel = LogSanitizer.cap(LogSanitizer.clean(label), maxBytes: 256)
        let cleanMessage = LogSanitizer.cap(
            LogSanitizer.clean(LogRedaction.scrubURLCredentials(message)), maxBytes: options.maxMessageBytes)
        let pairs = flatten(metadata)
        let ts = options.includeTimestamp ? Self.iso8601(timestamp) : nil
        let prefix = options.journalPriorityPrefix ? "<\(Self.syslogPriority(level))>" : ""
        switch format {
        case .text:
            return prefix + text(ts: ts, level: level, label: cleanLabel, message: cleanMessage, pairs: pairs)
        case .json:
            return prefix + json(ts: ts, level: level, label: cleanLabel, message: cleanMessage, pairs: pairs)
        }
    }

    /// Sorted `(key, value)` pairs: nested dictionaries become dotted keys, sensitive keys are
    /// redacted, and every value is cleaned and capped.
    public func flatten(_ metadata: Logger.Metadata) -> [(key: String, value: String)] {
        var out: [(key: String, value: String)] = []
        flatten(metadata, prefix: "", depth: 0, into: &out)
        return out.sorted { $0.key < $1.key }
    }

    private func flatten(_ metadata: Logger.Metadata, prefix: String, depth: Int,
                         into out: inout [(key: String, value: String)]) {
        for (rawKey, value) in metadata {
            let key = prefix + LogSanitizer.cleanKey(rawKey)
            if LogRedaction.isSensitive(key: key) {
                out.append((key, LogRedaction.placeholder))
            } else if case .dictionary(let nested) = value, depth < Self.maxNestingDepth {
                flatten(nested, prefix: key + ".", depth: depth + 1, into: &out)
            } else {
                let raw = LogRedaction.scrubURLCredentials(Self.render(value))
                out.append((key, LogSanitizer.cap(LogSanitizer.clean(raw), maxBytes: options.maxValueBytes)))
            }
        }
    }

    private static func render(_ value: Logger.MetadataValue) -> String {
        switch value {
        case .string(let string): return string
        case .stringConvertible(let convertible): return convertible.description
        case .array(let values): return "[" + values.map(render).joined(separator: ", ") + "]"
        case .dictionary(let dict):
            return "[" + dict.sorted { $0.key < $1.key }.map { "\($0.key): \(render($0.value))" }
                .joined(separator: ", ") + "]"
        }
    }

    // MARK: text

    private func text(ts: String?, level: Logger.Level, label: String, message: String,
                      pairs: [(key: String, value: String)]) -> String {
        var line = ""
        line.reserveCapacity(64 + message.utf8.count + pairs.count * 24)
        if let ts { line += ts + " " }
        line += level.rawValue + " [" + label + "] " + message
        for (key, value) in pairs {
            line += " " + key + "=" + Self.textValue(value)
        }
        return line
    }

    /// Quotes values that would otherwise split the `key=value` grammar.
    static func textValue(_ value: String) -> String {
        let needsQuotes = value.isEmpty || value.contains { $0 == " " || $0 == "\"" || $0 == "=" }
        guard needsQuotes else { return value }
        var quoted = "\""
        for char in value {
            if char == "\"" || char == "\\" { quoted.append("\\") }
            quoted.append(char)
        }
        return quoted + "\""
    }

    // MARK: json

    private func json(ts: String?, level: Logger.Level, label: String, message: String,
                      pairs: [(key: String, value: String)]) -> String {
        var line = "{"
        line.reserveCapacity(64 + message.utf8.count + pairs.count * 24)
        if let ts { line += "\"ts\":" + Self.jsonString(ts) + "," }
        line += "\"level\":" + Self.jsonString(level.rawValue)
        line += ",\"label\":" + Self.jsonString(label)
        line += ",\"msg\":" + Self.jsonString(message)
        for (key, value) in pairs {
            // A metadata key must not shadow the envelope fields (duplicate JSON keys are ambiguous).
            let safeKey = Self.reservedJSONKeys.contains(key) ? "_" + key : key
            line += "," + Self.jsonString(safeKey) + ":" + Self.jsonString(value)
        }
        return line + "}"
    }

    /// Hand-written because JSONEncoder would allocate an encoder per line and sorts/escapes in
    /// ways we do not control; this escapes exactly what RFC 8259 requires plus the characters
    /// that break line-oriented or JavaScript consumers.
    public static func jsonString(_ value: String) -> String {
        "\"" + TextScan.escaping(value) { scalar in
            if let escape = jsonEscapes[scalar] { return escape }
            let v = scalar.value
            return v < 0x20 || (0x7F...0x9F).contains(v) || v == 0x2028 || v == 0x2029 ? "\\u" + TextScan.hex(v, width: 4) : nil
        } + "\""
    }

    private static let jsonEscapes: [Unicode.Scalar: String] = [
        "\"": "\\\"", "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\u{08}": "\\b", "\u{0C}": "\\f",
    ]

    // MARK: time and priority

    /// `YYYY-MM-DDTHH:MM:SS.mmmZ`. Hand-formatted with gmtime_r: a formatter per line is costly,
    /// and a shared one is not Sendable.
    public static func iso8601(_ date: Date) -> String {
        // Whole milliseconds first: splitting seconds and fraction in floating point loses a ms.
        let totalMillis = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        var seconds = time_t(totalMillis.quotientAndRemainder(dividingBy: 1000).quotient)
        var millis = Int(totalMillis - Int64(seconds) * 1000)
        if millis < 0 { seconds -= 1; millis += 1000 }
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ n: Int32, _ width: Int) -> String {
            let digits = String(n)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return pad(parts.tm_year + 1900, 4) + "-" + pad(parts.tm_mon + 1, 2) + "-" + pad(parts.tm_mday, 2)
            + "T" + pad(parts.tm_hour, 2) + ":" + pad(parts.tm_min, 2) + ":" + pad(parts.tm_sec, 2)
            + "." + pad(Int32(millis), 3) + "Z"
    }

    static func syslogPriority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: return 7
        case .info: return 6
        case .notice: return 5
        case .warning: return 4
        case .error: return 3
        case .critical: return 2
        }
    }
}
