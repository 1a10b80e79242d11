import TextSupport

/// How a value is written into a TSV or CSV cell, and read back, so that a spreadsheet never runs
/// it and TSV can carry any value. Written by hand: no kept library does either.
enum CellText {
    /// The first characters with which a spreadsheet (Excel, LibreOffice, Google Sheets) reads a
    /// cell as a formula (OWASP "CSV injection"), and `'`, the mark itself, so that a value that
    /// starts with one survives the round trip.
    private static let marked: Set<UInt8> = [
        UInt8(ascii: "="), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "@"), 0x09, 0x0D, UInt8(ascii: "'"),
    ]

    /// `value` with a leading `'` when it starts with a formula character (or `'`): spreadsheets
    /// show such a cell as text, and `unmarked` takes the `'` off again on import.
    static func marked(_ value: String) -> String {
        guard let first = value.utf8.first, marked.contains(first) else { return value }
        return "'" + value
    }

    /// A cell's value: one leading `'` removed (see `marked`).
    static func unmarked(_ cell: String) -> String {
        cell.utf8.first == UInt8(ascii: "'") ? String(cell.dropFirst()) : cell
    }

    /// `value` as a TSV cell: the backslash escapes of PostgreSQL's COPY text format and
    /// "linear TSV" (`\\`, `\t`, `\n`, `\r`; any other C0 control or DEL as `\xHH`), so a tab or a
    /// line break in a value written into the database by hand neither splits its row nor fails
    /// the export.
    static func tsvEscaped(_ value: String) -> String {
        guard value.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F || $0 == UInt8(ascii: "\\") }) else { return value }
        return TextScan.escaping(value) { scalar in
            tsvEscapes[scalar] ?? (scalar.value < 0x20 || scalar.value == 0x7F ? "\\x" + TextScan.hex(scalar.value, width: 2, uppercase: true) : nil)
        }
    }

    private static let tsvEscapes: [Unicode.Scalar: String] = ["\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"]

    /// A TSV cell's value: the escapes `tsvEscaped` writes read back (`\xHH` only for the values it
    /// writes that way); any other backslash is kept as it is.
    static func tsvUnescaped(_ cell: String) -> String {
        guard cell.utf8.contains(UInt8(ascii: "\\")) else { return cell }
        let bytes = Array(cell.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            guard byte == UInt8(ascii: "\\"), index + 1 < bytes.count else {
                out.append(byte)
                index += 1
                continue
            }
            switch bytes[index + 1] {
            case UInt8(ascii: "\\"): out.append(byte)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "x"):
                if index + 3 < bytes.count, case let pair = bytes[(index + 2)...(index + 3)],
                   pair.allSatisfy({ Character(Unicode.Scalar($0)).isHexDigit }),
                   let control = UInt8(String(decoding: pair, as: UTF8.self), radix: 16), control < 0x20 || control == 0x7F {
                    out.append(control)
                    index += 4
                    continue
                }
                out.append(byte)
                index += 1
                continue
            default:
                out.append(byte)
                index += 1
                continue
            }
            index += 2
        }
        return String(decoding: out, as: UTF8.self)
    }
}
