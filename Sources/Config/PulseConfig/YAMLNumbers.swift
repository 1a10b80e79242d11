/// YAML 1.1's spellings of numbers in plain scalars, read the way Yams' `Int.construct` and
/// `Double.construct` read them: `_` ignored, a sign, `0x`/`0b`/`0o` and a leading `0` (octal) for
/// integers, base 60 (`1:30`) for both, and `.inf`/`.nan` for floats.
///
/// Not Yams' own: its base-60 reading multiplies without an overflow check, so a value such as
/// `99999999999:0:0:0:0:0` in feeds.yaml would trap the process. Here such a value is nil.
enum YAMLNumbers {
    static func int(_ text: String) -> Int? {
        let digits = text.filter { $0 != "_" }
        if digits == "0" { return 0 }
        let negative = digits.hasPrefix("-")
        let signed = negative || digits.hasPrefix("+")
        let body = digits.dropFirst(signed ? 1 : 0)
        let sign = negative ? "-" : ""
        for (prefix, radix) in [("0x", 16), ("0b", 2), ("0o", 8), ("0", 8)] where body.hasPrefix(prefix) {
            return Int(sign + body.dropFirst(prefix.count), radix: radix)
        }
        if body.contains(":") { return sexagesimal(digits) as Int? }
        return Int(digits)
    }

    static func float(_ text: String) -> Double? {
        switch text.lowercased() {
        case ".inf", "+.inf": return .infinity
        case "-.inf": return -.infinity
        case ".nan": return .nan
        default:
            let digits = text.filter { $0 != "_" }
            return digits.contains(":") ? sexagesimal(digits) as Double? : Double(digits)
        }
    }

    /// `[-+]a:b:c` as ((a * 60) + b) * 60 + c; each part is read as `Int(part)` would (a sign too).
    private static func sexagesimal(_ text: String) -> Int? {
        let (negative, parts) = sexagesimalParts(text)
        var value = 0
        for part in parts {
            guard let digit = Int(part) else { return nil }
            let (shifted, overflowA) = value.multipliedReportingOverflow(by: 60)
            let (next, overflowB) = shifted.addingReportingOverflow(digit)
            guard !overflowA, !overflowB else { return nil }
            value = next
        }
        return negative ? 0 - value : value
    }

    private static func sexagesimal(_ text: String) -> Double? {
        let (negative, parts) = sexagesimalParts(text)
        var value = 0.0
        for part in parts {
            guard let digit = Double(part) else { return nil }
            value = value * 60 + digit
        }
        return negative ? -value : value
    }

    private static func sexagesimalParts(_ text: String) -> (negative: Bool, parts: [Substring]) {
        let negative = text.hasPrefix("-")
        let body = text.dropFirst(negative || text.hasPrefix("+") ? 1 : 0)
        return (negative, body.split(separator: ":", omittingEmptySubsequences: false))
    }
}
