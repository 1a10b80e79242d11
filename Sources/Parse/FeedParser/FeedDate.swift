import FoundationEssentials
import Glibc

/// Feed date parsing: RFC 822/1123 (and the usual malformed variants) and RFC 3339 / ISO 8601.
///
/// Hand-written on purpose: DateFormatter is slow (hundreds of items per feed, thousands of feeds),
/// locale-dependent, and each malformed variant would need its own format string. This scanner
/// accepts all of them in one pass over the bytes and returns nil when it cannot be sure.
public enum FeedDate {
    public static func parse(_ text: String) -> Date? {
        var s = text
        return s.withUTF8 { buf in
            var scan = Scanner8(buf)
            scan.skipSpaces()
            if scan.looksISO() { return parseISO(&scan) }
            let start = scan.pos
            if let d = parseRFC822(&scan) { return d }
            scan.pos = start
            return parseISO(&scan)
        }
    }

    // MARK: RFC 3339 / ISO 8601

    private static func parseISO(_ s: inout Scanner8) -> Date? {
        guard let year = s.digits(min: 4, max: 4), s.eat(UInt8(ascii: "-")),
              let month = s.digits(min: 1, max: 2) else { return nil }
        var day = 1
        if s.eat(UInt8(ascii: "-")) {
            guard let d = s.digits(min: 1, max: 2) else { return nil }
            day = d
        }
        var hour = 0, minute = 0, second = 0, offset = 0
        if s.eat(UInt8(ascii: "T")) || s.eat(UInt8(ascii: "t")) || (s.peek == 0x20 && s.peekDigit(at: 1)) {
            if s.peek == 0x20 { s.pos += 1 }
            guard let h = s.digits(min: 1, max: 2), s.eat(UInt8(ascii: ":")),
                  let m = s.digits(min: 2, max: 2) else { return nil }
            hour = h; minute = m
            if s.eat(UInt8(ascii: ":")) {
                guard let sec = s.digits(min: 2, max: 2) else { return nil }
                second = sec
                if s.eat(UInt8(ascii: ".")) || s.eat(UInt8(ascii: ",")) { _ = s.digits(min: 1, max: 12) }
            }
            s.skipSpaces()
            if let z = parseNumericOrZ(&s) { offset = z } else if let n = s.word(), let z = namedZone(n) { offset = z }
        }
        s.skipSpaces()
        guard s.atEnd else { return nil }
        return build(year, month, day, hour, minute, second, offset)
    }

    // MARK: RFC 822

    private static func parseRFC822(_ s: inout Scanner8) -> Date? {
        // Optional weekday ("Tue," "Tuesday," "Tue" without comma).
        if s.peekAlpha {
            let save = s.pos
            if let w = s.word(), monthNumber(w) == nil {
                _ = s.eat(UInt8(ascii: ","))
                s.skipSpaces()
            } else {
                s.pos = save
            }
        }
        var day: Int, month: Int
        if let d = s.digits(min: 1, max: 2) {
            day = d
            s.skipSeparators()
            guard let w = s.word(), let m = monthNumber(w) else { return nil }
            month = m
        } else {
            // "Jun 10 2003" (month first) also occurs.
            guard let w = s.word(), let m = monthNumber(w) else { return nil }
            month = m
            s.skipSeparators()
            guard let d = s.digits(min: 1, max: 2) else { return nil }
            day = d
            _ = s.eat(UInt8(ascii: ","))
        }
        s.skipSeparators()
        guard let y = s.digits(min: 2, max: 4) else { return nil }
        var year = y
        if s.lastDigitCount == 2 { year += y < 50 ? 2000 : 1900 } else if s.lastDigitCount == 3 { year += 1900 }
        s.skipSpaces()
        var hour = 0, minute = 0, second = 0, offset = 0
        if let h = s.digits(min: 1, max: 2) {
            guard s.eat(UInt8(ascii: ":")), let m = s.digits(min: 1, max: 2) else { return nil }
            hour = h; minute = m
            if s.eat(UInt8(ascii: ":")) {
                guard let sec = s.digits(min: 1, max: 2) else { return nil }
                second = sec
                if s.eat(UInt8(ascii: ".")) { _ = s.digits(min: 1, max: 9) }
            }
            s.skipSpaces()
            if let z = parseNumericOrZ(&s) {
                offset = z
            } else if let w = s.word() {
                guard var z = namedZone(w) else { return nil }
                // "GMT+2", "UTC-05:00", "GMT +0100"
                s.skipSpaces()
                if let extra = parseNumericOrZ(&s) { z += extra }
                offset = z
            }
        }
        s.skipSpaces()
        if s.peek == UInt8(ascii: "(") { s.pos = s.end }  // "(UTC)", "(Eastern Standard Time)"
        guard s.atEnd else { return nil }
        return build(year, month, day, hour, minute, second, offset)
    }

    /// "Z", "+0200", "-05:00", "+2", "+02". Returns seconds east of UTC.
    private static func parseNumericOrZ(_ s: inout Scanner8) -> Int? {
        guard let c = s.peek else { return nil }
        if c == UInt8(ascii: "Z") || c == UInt8(ascii: "z") {
            if let next = s.byte(at: 1), isAlpha(next) { return nil }
            s.pos += 1
            return 0
        }
        guard c == UInt8(ascii: "+") || c == UInt8(ascii: "-") || c == 0xE2 else { return nil }
        let save = s.pos
        var sign = c == UInt8(ascii: "+") ? 1 : -1
        if c == 0xE2 {  // U+2212 MINUS SIGN, seen in hand-typed dates
            guard s.byte(at: 1) == 0x88, s.byte(at: 2) == 0x92 else { return nil }
            s.pos += 2; sign = -1
        }
        s.pos += 1
        guard let n = s.digits(min: 1, max: 4) else { s.pos = save; return nil }
        var hours = n, minutes = 0
        if s.lastDigitCount > 2 { hours = n / 100; minutes = n % 100 } else if s.eat(UInt8(ascii: ":")) {
            guard let m = s.digits(min: 2, max: 2) else { s.pos = save; return nil }
            minutes = m
        }
        guard hours <= 14, minutes < 60 else { s.pos = save; return nil }
        return sign * (hours * 3600 + minutes * 60)
    }

    private static func build(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int,
                              _ second: Int, _ offset: Int) -> Date? {
        guard (1...12).contains(month), year >= 1, year <= 9999,
              day >= 1, day <= daysIn(month, year),
              hour <= 23 || (hour == 24 && minute == 0 && second == 0),
              minute <= 59, second <= 60 else { return nil }
        let days = daysFromCivil(year, month, day)
        let secs = days * 86_400 + hour * 3600 + minute * 60 + min(second, 59) - offset
        return Date(timeIntervalSince1970: TimeInterval(secs))
    }

    private static func daysIn(_ month: Int, _ year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 (H. Hinnant's days_from_civil).
    private static func daysFromCivil(_ y0: Int, _ m: Int, _ d: Int) -> Int {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// Month from its English name or any prefix of at least three letters ("Sept", "june").
    static func monthNumber(_ word: Word) -> Int? {
        guard word.count >= 3 else { return nil }
        for (i, name) in monthKeys.enumerated() where word.count <= name.count {
            let mask: UInt64 = word.count >= 8 ? ~0 : (1 << (8 * UInt64(word.count))) - 1
            if name.key & mask == word.key { return i + 1 }
        }
        return nil
    }

    static let monthKeys: [Word] = ["january", "february", "march", "april", "may", "june", "july", "august",
                                    "september", "october", "november", "december"].map { Word(Array($0.utf8)) }

    /// Named zones: RFC 822's plus the common abbreviations feeds emit. Seconds east of UTC.
    static func namedZone(_ word: Word) -> Int? {
        zones[word.key].map { Int($0 * 3600) }
    }

    static let zones: [UInt64: Double] = {
        let table: [(String, Double)] = [
            ("gmt", 0), ("ut", 0), ("utc", 0), ("z", 0), ("wet", 0), ("zulu", 0),
            ("est", -5), ("edt", -4), ("ast", -4), ("adt", -3), ("cst", -6), ("cdt", -5), ("mst", -7), ("mdt", -6),
            ("pst", -8), ("pdt", -7), ("akst", -9), ("akdt", -8), ("hst", -10), ("nst", -3.5),
            ("bst", 1), ("cet", 1), ("west", 1), ("met", 1), ("cest", 2), ("eet", 2), ("mest", 2), ("sast", 2),
            ("eest", 3), ("msk", 3), ("ist", 5.5), ("sgt", 8), ("hkt", 8), ("awst", 8), ("jst", 9), ("kst", 9),
            ("acst", 9.5), ("aest", 10), ("acdt", 10.5), ("aedt", 11), ("nzst", 12), ("nzdt", 13),
        ]
        var m: [UInt64: Double] = [:]
        for (name, hours) in table { m[Word(Array(name.utf8)).key] = hours }
        return m
    }()

    /// A lowercased ASCII word packed into 8 bytes (no allocation per token).
    struct Word {
        var key: UInt64 = 0
        var count = 0

        init(_ bytes: [UInt8]) {
            for b in bytes { append(b) }
        }

        init() {}

        mutating func append(_ b: UInt8) {
            if count < 8 { key |= UInt64(FeedDate.lower(b)) << (8 * UInt64(count)) }
            count += 1
        }
    }

    static func lower(_ c: UInt8) -> UInt8 { c >= 65 && c <= 90 ? c + 32 : c }
    static func isAlpha(_ c: UInt8) -> Bool { (c | 0x20) >= 97 && (c | 0x20) <= 122 }
}

/// A minimal byte cursor for the date grammar.
struct Scanner8 {
    let buf: UnsafeBufferPointer<UInt8>
    var pos = 0
    var end: Int
    var lastDigitCount = 0

    init(_ buf: UnsafeBufferPointer<UInt8>) {
        self.buf = buf
        var e = buf.count
        while e > 0, buf[e - 1] == 0x20 || buf[e - 1] == 0x09 || buf[e - 1] == 0x0A || buf[e - 1] == 0x0D { e -= 1 }
        end = e
    }

    var atEnd: Bool { pos >= end }
    var peek: UInt8? { pos < end ? buf[pos] : nil }
    var peekAlpha: Bool { peek.map(FeedDate.isAlpha) ?? false }
    func byte(at offset: Int) -> UInt8? { pos + offset < end ? buf[pos + offset] : nil }
    func peekDigit(at offset: Int) -> Bool { byte(at: offset).map { $0 >= 48 && $0 <= 57 } ?? false }

    mutating func eat(_ c: UInt8) -> Bool {
        if pos < end, buf[pos] == c { pos += 1; return true }
        return false
    }

    mutating func skipSpaces() {
        while pos < end, buf[pos] == 0x20 || buf[pos] == 0x09 || buf[pos] == 0x0A || buf[pos] == 0x0D { pos += 1 }
    }

    /// Spaces, and the "-" or "/" some feeds put between day, month and year.
    mutating func skipSeparators() {
        while pos < end {
            let c = buf[pos]
            guard c == 0x20 || c == 0x09 || c == 0x2D || c == 0x2F || c == 0x2C else { break }
            pos += 1
        }
    }

    mutating func digits(min: Int, max: Int) -> Int? {
        var value = 0, count = 0
        while pos < end, count < max, buf[pos] >= 48, buf[pos] <= 57 {
            value = value * 10 + Int(buf[pos] - 48); pos += 1; count += 1
        }
        if count < min { pos -= count; return nil }
        // Trailing digits beyond `max` make the field ambiguous.
        if pos < end, buf[pos] >= 48, buf[pos] <= 57, max < 12 { pos -= count; return nil }
        lastDigitCount = count
        return value
    }

    mutating func word() -> FeedDate.Word? {
        var w = FeedDate.Word()
        while pos < end, FeedDate.isAlpha(buf[pos]) { w.append(buf[pos]); pos += 1 }
        guard w.count > 0 else { return nil }
        _ = eat(UInt8(ascii: "."))  // "Sept." / "Jun."
        return w
    }

    /// "2024-01-05..." : four digits then a dash.
    func looksISO() -> Bool {
        guard pos + 4 < end else { return false }
        for i in 0..<4 where !(buf[pos + i] >= 48 && buf[pos + i] <= 57) { return false }
        return buf[pos + 4] == UInt8(ascii: "-")
    }
}
