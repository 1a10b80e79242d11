import AddressPolicy
import TextSupport
import Yams

/// A source given as cells, one row of an imported TSV, CSV or OPML file, instead of a YAML mapping.
/// Keys are feeds.yaml's source keys (`SourceTable.columns`); an empty cell is left out.
public struct SourceRow: Sendable, Equatable {
    public struct Cell: Sendable, Equatable {
        public var key: String
        public var value: String
        /// 1-based line of the value (a quoted CSV field may start on a later line than its row).
        public var line: Int

        public init(key: String, value: String, line: Int) {
            self.key = key
            self.value = value
            self.line = line
        }
    }

    /// 1-based line where the row (or the OPML outline element) starts.
    public var line: Int
    public var cells: [Cell]

    public init(line: Int, cells: [Cell] = []) {
        self.line = line
        self.cells = cells
    }

    public func value(_ key: String) -> String? {
        cells.first { $0.key == key }?.value
    }

    /// Sets `key` (replacing a cell of that key), on the row's line.
    public mutating func set(_ key: String, to value: String) {
        if let index = cells.firstIndex(where: { $0.key == key }) {
            cells[index].value = value
        } else {
            cells.append(Cell(key: key, value: value, line: line))
        }
    }
}

/// The rules of feeds.yaml's `sources:` entries, for sources that come from elsewhere (an imported
/// file): each row goes through the very code that reads a YAML source (`SourceListParser`), so
/// every rule (URLs, languages, intervals, known categories, duplicate slugs and feeds) has one
/// implementation and the same words.
public enum SourceTable {
    /// The keys of a source, in feeds.yaml's order: the columns of an import or export file.
    public static var columns: [String] { SourceListParser.keys }

    /// Why `name` is not a column (unknown, with a did-you-mean, or named like a secret), or nil.
    public static func columnProblem(_ name: String) -> String? {
        columns.contains(name) ? nil : MappingView.unknownKeyProblem(name, section: "source", allowedKeys: columns)
    }

    /// Why `code` is not a language a source may have, or nil.
    public static func languageProblem(_ code: String) -> String? { FieldRules.languageProblem(code) }

    /// Why `category` is none of `categories` (with a did-you-mean and the known slugs), or nil.
    public static func categoryProblem(_ category: String, in categories: [CategoryConfig]) -> String? {
        guard !categories.contains(where: { $0.slug == category }) else { return nil }
        var known: [String] = []
        for category in categories where !known.contains(category.slug) { known.append(category.slug) }
        var message = "unknown category '\(FieldRules.printable(category))'"
        if let guess = closestKey(to: category, in: known) { message += " (did you mean '\(guess)'?)" }
        return message + "; known categories: " + known.joined(separator: ", ")
    }

    /// The rows as sources, validated exactly as feeds.yaml's `sources:` list with these defaults,
    /// categories and allowed networks: the rows are written as the YAML list they stand for and read by the same walk.
    /// Every problem comes back, in line order, each naming `file`, its line and the source; the
    /// sources are usable only when there is none.
    public static func validate(_ rows: [SourceRow], file: String, defaults: SourceDefaults, categories: [CategoryConfig],
                                allowedNetworks: [CIDR] = []) -> (sources: [SourceConfig], issues: [ConfigIssue]) {
        // A key given twice in one row is refused, as YAML refuses it in a mapping.
        for row in rows {
            let earlier = earlierDuplicates(row.cells.map(\.key))
            if let repeated = earlier.firstIndex(where: { $0 != nil }), let first = earlier[repeated] {
                let error = YAMLSyntaxError.duplicateKey(row.cells[repeated].key, line: row.cells[repeated].line,
                                                         firstLine: row.cells[first].line)
                return ([], [ConfigIssue(file: file, line: error.line, source: nil, message: error.message)])
            }
        }
        let (yaml, lines) = yamlList(rows)
        let diag = Diagnostics(file: file, lines: lines)
        do {
            let sources = try YAMLDocument.reading(yaml) { root in
                SourceListParser(diag: diag, defaults: defaults, categories: categories, allowedNetworks: allowedNetworks)
                    .parse(root?.sequence.map(Array.init) ?? [])
            }
            return (sources, diag.issues.inLineOrder)
        } catch {
            // Not expected (the text is written below), but never dropped.
            return ([], [ConfigIssue(file: file, line: nil, source: nil, message: error.message)])
        }
    }

    /// The rows as YAML flow mappings, a line for each row's start and end and one for each cell,
    /// with the file's line of each YAML line (a quoted CSV field may start on a later line than
    /// its row).
    private static func yamlList(_ rows: [SourceRow]) -> (text: String, lines: [Int]) {
        var text = "", lines: [Int] = []
        for row in rows {
            text += "- {\n"
            lines.append(row.line)
            for cell in row.cells {
                text += yamlScalar(cell.key) + ": " + yamlScalar(cell.value) + ",\n"
                lines.append(cell.line)
            }
            text += "}\n"
            lines.append(row.line)
        }
        return (text, lines)
    }

    /// A cell as a YAML scalar. Plain (so numbers and booleans are read by feeds.yaml's rules) when
    /// it holds only the characters those are written with and is none of YAML's null spellings (a
    /// file's cell is never null: an empty one is left out by its reader); else double-quoted, every
    /// character outside printable ASCII escaped, so the text read back is the cell's.
    private static func yamlScalar(_ text: String) -> String {
        let isPlainByte = { (byte: UInt8) in
            let lower = byte | 0x20
            return (lower >= UInt8(ascii: "a") && lower <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "+")
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ":")
        }
        if text.utf8.allSatisfy(isPlainByte), text.utf8.first != UInt8(ascii: ":"), text.utf8.last != UInt8(ascii: ":"),
           text != "-", !MappingView.isNullSpelling(text) {
            return text
        }
        let escaped = TextScan.escaping(text) { scalar in
            switch scalar {
            case "\"", "\\": "\\" + String(scalar)
            case " "..."~": nil
            default: scalar.value <= 0xFFFF ? "\\u" + TextScan.hex(scalar.value, width: 4) : "\\U" + TextScan.hex(scalar.value, width: 8)
            }
        }
        return "\"" + escaped + "\""
    }
}
