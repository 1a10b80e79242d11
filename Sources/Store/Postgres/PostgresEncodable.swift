import FoundationEssentials
import Glibc

/// A value that can be sent as a text-format libpq parameter. Cast in SQL (`$1::timestamptz`)
/// where the type is not obvious from context.
public protocol PostgresEncodable: Sendable {
    /// The parameter's text, or nil for SQL NULL.
    var postgresText: String? { get }
}

extension String: PostgresEncodable { public var postgresText: String? { self } }
extension Int: PostgresEncodable { public var postgresText: String? { String(self) } }
extension Int32: PostgresEncodable { public var postgresText: String? { String(self) } }
extension Int64: PostgresEncodable { public var postgresText: String? { String(self) } }
extension Double: PostgresEncodable { public var postgresText: String? { String(self) } }
extension Bool: PostgresEncodable { public var postgresText: String? { self ? "true" : "false" } }
extension Optional: PostgresEncodable where Wrapped: PostgresEncodable {
    public var postgresText: String? { self.flatMap { $0.postgresText } }
}

extension Date: PostgresEncodable {
    /// UTC with microseconds, the precision of `timestamptz`.
    public var postgresText: String? { PostgresTimestamp.format(self) }
}

/// Text form of timestamps for and from PostgreSQL.
public enum PostgresTimestamp {
    /// `2026-11-22 06:12:00.123456+00`. Hand-written with gmtime_r: DateFormatter is slow and
    /// locale-sensitive, and this runs once per stored row.
    public static func format(_ date: Date) -> String {
        let interval = date.timeIntervalSince1970
        var seconds = time_t(interval.rounded(.down))
        var micros = Int(((interval - Double(seconds)) * 1_000_000).rounded())
        if micros >= 1_000_000 { seconds += 1; micros -= 1_000_000 }
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
        }
        return "\(pad(Int(parts.tm_year) + 1900, 4))-\(pad(Int(parts.tm_mon) + 1, 2))-\(pad(Int(parts.tm_mday), 2)) "
            + "\(pad(Int(parts.tm_hour), 2)):\(pad(Int(parts.tm_min), 2)):\(pad(Int(parts.tm_sec), 2))."
            + "\(pad(micros, 6))+00"
    }

    /// Parses the server's text output for timestamptz when the session TimeZone is UTC, or an
    /// ISO form with an offset (`2026-11-22 06:12:00.5+00`, `...+05:30`). Returns nil otherwise.
    public static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        func number(_ from: Int, _ count: Int) -> Int? {
            guard from + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[from..<from + count] {
                guard byte >= 48 && byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        guard let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
              let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2)
        else { return nil }
        var index = 19
        var fraction = 0.0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            var scale = 0.1
            while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 {
                fraction += Double(bytes[index] - 48) * scale
                scale /= 10
                index += 1
            }
        }
        var offset = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
            let sign = bytes[index] == UInt8(ascii: "-") ? -1 : 1
            guard let hours = number(index + 1, 2) else { return nil }
            var minutes = 0
            if index + 3 < bytes.count {
                let minuteStart = bytes[index + 3] == UInt8(ascii: ":") ? index + 4 : index + 3
                minutes = number(minuteStart, 2) ?? 0
            }
            offset = sign * (hours * 3600 + minutes * 60)
        }
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month - 1)
        parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(hour)
        parts.tm_min = Int32(minute)
        parts.tm_sec = Int32(second)
        let epoch = timegm(&parts)
        return Date(timeIntervalSince1970: Double(epoch - offset) + fraction)
    }
}
