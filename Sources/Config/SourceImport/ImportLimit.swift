/// How many rows one import takes. An import validates every row before it writes any and then
/// writes them in one transaction (all or nothing); both hold every row in memory at once. A
/// million-row TSV (80 MB) peaked at 1.77 GB and then hit the statement timeout, so a file above
/// the limit is refused before any of that work, by a count of its rows.
public enum ImportLimit {
    /// Rows (sources) one import file may hold: far above any real catalogue (the shipped one has
    /// 136, the largest farm tested 2,000), and measured within 512 MB of peak memory (README).
    public static let maxRows = 100_000

    /// The rows of `bytes` read as `format`, counted without reading them: TSV and CSV count
    /// non-blank lines after the header (CSV not counting line breaks inside quotes); OPML counts
    /// `<outline` start tags (folders too, so it is an upper bound). Hand-written byte scans: the
    /// readers themselves are what must not run on a file too large.
    public static func rowCount(_ bytes: [UInt8], format: SourceFileFormat) -> Int {
        switch format {
        case .opml: return occurrences(of: Array("<outline".utf8), in: bytes)
        case .tsv, .csv: return max(0, nonBlankLines(bytes, quoted: format == .csv) - 1)
        }
    }

    /// Why a file of `rows` rows is refused, naming the limit and what to do, or nil.
    public static func refusal(rows: Int, format: SourceFileFormat) -> String? {
        guard rows > maxRows else { return nil }
        let split = format == .opml ? "split it into files of at most \(maxRows.grouped) feeds"
            : "split it into files of at most \(maxRows.grouped) rows, each with the header row"
        return "\(rows.grouped) \(format == .opml ? "outlines" : "rows"), more than the \(maxRows.grouped) one import "
            + "takes (each import is validated whole, then written in one transaction): \(split), "
            + "and import them one after another; nothing was imported"
    }

    private static func nonBlankLines(_ bytes: [UInt8], quoted: Bool) -> Int {
        var lines = 0
        var blank = true
        var inQuotes = false
        for byte in bytes {
            if quoted, byte == UInt8(ascii: "\"") { inQuotes.toggle() }
            if byte == 0x0A, !inQuotes {
                if !blank { lines += 1 }
                blank = true
            } else if byte != 0x0D {
                blank = false
            }
        }
        return blank ? lines : lines + 1
    }

    private static func occurrences(of needle: [UInt8], in bytes: [UInt8]) -> Int {
        var count = 0
        var index = 0
        let last = bytes.count - needle.count
        while index <= last {
            if bytes[index] == needle[0], bytes[index..<(index + needle.count)].elementsEqual(needle) {
                count += 1
                index += needle.count
            } else {
                index += 1
            }
        }
        return count
    }
}

extension Int {
    /// `1000000` as `1,000,000`.
    var grouped: String {
        let digits = String(self)
        var out = ""
        for (offset, digit) in digits.enumerated() {
            if offset > 0, (digits.count - offset) % 3 == 0 { out += "," }
            out.append(digit)
        }
        return out
    }
}
