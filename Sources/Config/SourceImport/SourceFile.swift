import PulseModel
import PulseConfig

/// The formats `--import-sources` reads and `--export-sources` writes.
public enum SourceFileFormat: String, Sendable, CaseIterable {
    case opml, tsv, csv

    /// From the name's extension (`.opml` or `.xml`: OPML; `.tsv` or `.tab`: TSV; `.csv`: CSV, in
    /// any case), else from the content: OPML when its first non-blank character is `<`, else TSV
    /// when its first line holds a tab, else CSV.
    public static func detect(path: String, bytes: [UInt8]) -> SourceFileFormat {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        if let dot = name.lastIndex(of: "."), dot != name.startIndex {
            switch name[name.index(after: dot)...].lowercased() {
            case "opml", "xml": return .opml
            case "tsv", "tab": return .tsv
            case "csv": return .csv
            default: break
            }
        }
        var content = bytes[...]
        if content.starts(with: SourceFile.utf8BOM) { content = content.dropFirst(3) }
        if content.first(where: { !(0x09...0x0D).contains($0) && $0 != 0x20 }) == UInt8(ascii: "<") { return .opml }
        let firstLine = content.prefix { $0 != 0x0A }
        return firstLine.contains(0x09) ? .tsv : .csv
    }
}

/// One row of an import file, before the import fills in what a feed reader's OPML leaves out.
public struct ImportRow: Sendable, Equatable {
    public var row: SourceRow
    /// The texts of the OPML outlines around it, nearest first (a feed reader's folders).
    public var folders: [String] = []
}

/// An import file read into rows of source cells (`SourceTable.columns`), with what was wrong
/// with the file itself (syntax, columns), each on its line.
public struct SourceFile: Sendable, Equatable {
    /// The file as messages name it.
    public var name: String
    public var format: SourceFileFormat
    public var rows: [ImportRow] = []
    public var issues: [ConfigIssue] = []

    /// Our own OPML attributes (`pulse:slug`, `pulse:category`, ...): feeds.yaml's keys, in this
    /// namespace, on the feed's outline. OPML's `xmlUrl`, `htmlUrl` and `text` carry the feed URL,
    /// the website and the name, as every feed reader reads them.
    public static let opmlNamespace = "https://github.com/pulse-news/pulse-ingest/opml"
    static let utf8BOM: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// `opml` parses an OPML file (FeedParser's `OPMLParser.parse`, handed in so that this
    /// config-stage module does not import the parse stage).
    public static func read(_ bytes: [UInt8], name: String, format: SourceFileFormat,
                            opml: OPMLReading) -> SourceFile {
        var file = SourceFile(name: name, format: format)
        switch format {
        case .opml: file.readOPML(bytes, opml)
        case .tsv, .csv: file.readTable(bytes)
        }
        return file
    }

    mutating func issue(_ message: String, line: Int?, source: String? = nil) {
        issues.append(ConfigIssue(file: name, line: line, source: source, message: message))
    }

    /// The file without its UTF-8 byte order mark; nil (reported) when it is not UTF-8 text.
    private mutating func utf8Body(_ bytes: [UInt8]) -> ArraySlice<UInt8>? {
        var body = bytes[...]
        if body.starts(with: Self.utf8BOM) { body = body.dropFirst(3) }
        guard let line = DelimitedText.firstLineNotUTF8(body) else { return body }
        issue("not UTF-8 text (save the file as UTF-8)", line: line)
        return nil
    }

    // MARK: OPML

    private mutating func readOPML(_ bytes: [UInt8], _ parse: OPMLReading) {
        // An import file is UTF-8, whatever its XML declaration says, as a TSV or CSV is: the
        // feed parser's charset guessing would read a stray byte as Latin-1 and drop a NUL.
        guard let body = utf8Body(bytes) else { return }
        if let (line, byte) = DelimitedText.firstControl(in: body, allowing: [0x09, 0x0A, 0x0D]) {
            let name = byte == 0 ? "a NUL byte" : "the control character U+00" + (byte < 0x10 ? "0" : "")
                + String(byte, radix: 16, uppercase: true)
            return issue("holds \(name), which XML 1.0 cannot carry", line: line)
        }
        let document: OPMLDocument
        do {
            document = try parse(bytes)
        } catch {
            return issue(error.message, line: error.line)
        }
        let outlines = document.outlines
        for outline in outlines {
            var row = SourceRow(line: outline.line)
            func set(_ key: String, _ value: String?) {
                if let value, !value.isEmpty { row.set(key, to: value) }
            }
            set("name", outline.attribute("text")?.nilIfBlank ?? outline.attribute("title"))
            set("feed_url", outline.attribute("xmlUrl"))
            set("website_url", outline.attribute("htmlUrl"))
            // Ours win over OPML's own; an unknown one is reported by the source rules.
            for attribute in outline.attributes where attribute.namespace == Self.opmlNamespace {
                set(attribute.name, attribute.value)
            }
            guard row.value("feed_url") != nil else {
                // Not a feed: a folder, a link or a note, not imported; but one carrying our own
                // attributes was meant to be a source.
                if outline.attributes.contains(where: { $0.namespace == Self.opmlNamespace }) {
                    issue("this outline has pulse: attributes but no 'xmlUrl' (the feed's URL)", line: outline.line)
                }
                continue
            }
            var folders: [String] = []
            var parent = outline.parent
            while let folder = parent {
                if let text = outlines[folder].attribute("text")?.nilIfBlank ?? outlines[folder].attribute("title") {
                    folders.append(text)
                }
                parent = outlines[folder].parent
            }
            rows.append(ImportRow(row: row, folders: folders))
        }
    }

    // MARK: TSV and CSV

    private mutating func readTable(_ bytes: [UInt8]) {
        guard let body = utf8Body(bytes) else { return }
        var records: [DelimitedText.Record] = []
        if format == .tsv {
            records = DelimitedText.tsvRecords(body)
        } else {
            let parsed = DelimitedText.csvRecords(body)
            records = parsed.records
            for problem in parsed.problems { issue(problem.message, line: problem.line) }
        }
        guard let header = records.first else { return issue("the file is empty (expected a header row)", line: nil) }
        // Column positions; nil for a column that is reported and left out.
        var keys: [String?] = []
        for (position, field) in header.fields.enumerated() {
            if let problem = SourceTable.columnProblem(field.value) {
                issue("column \(position + 1): \(problem)", line: header.line)
                keys.append(nil)
            } else if let first = keys.firstIndex(of: field.value) {
                issue("column '\(field.value)' appears twice (columns \(first + 1) and \(position + 1))", line: header.line)
                keys.append(nil)
            } else {
                keys.append(field.value)
            }
        }
        let missing = ["name", "feed_url"].filter { (column: String) in !keys.contains { $0 == column } }
        guard missing.isEmpty else {
            let columns = SourceTable.columns.joined(separator: ", ")
            let names = missing.joined(separator: "' or '")
            return issue("the header row has no '\(names)' column (columns: \(columns))", line: header.line)
        }
        for record in records.dropFirst() {
            if record.fields.count > keys.count {
                issue("\(record.fields.count) cells, but the header row has \(keys.count) columns", line: record.line)
                continue
            }
            var row = SourceRow(line: record.line)
            for (field, key) in zip(record.fields, keys) {
                // What the export wrote (SourceExport): TSV escapes, then the spreadsheet mark.
                let value = CellText.unmarked(format == .tsv ? CellText.tsvUnescaped(field.value) : field.value)
                if let key, !value.isEmpty { row.cells.append(SourceRow.Cell(key: key, value: value, line: field.line)) }
            }
            rows.append(ImportRow(row: row))
        }
    }
}

extension String {
    /// nil when empty or only spaces (a feed reader's `text=""`).
    var nilIfBlank: String? { allSatisfy { $0 == " " } ? nil : self }
}
