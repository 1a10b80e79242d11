import PulseConfig
import PulseModel
import TextSupport

/// A value the chosen format cannot carry, by source and column.
public struct SourceExportError: Error, Sendable, Equatable, CustomStringConvertible {
    public var slug: String
    public var column: String
    public var reason: String

    public var description: String { "source '\(slug)': \(column) \(reason)" }
}

/// Sources as an import file, so that exporting and importing again gives the same rows: every
/// column is written (an empty cell, or no OPML attribute, only for a NULL), with the header row
/// `SourceTable.columns`.
///
/// - TSV: a tab between values, LF after each row; a backslash, tab, CR, LF or other control
///   character in a value is escaped (`CellText.tsvEscaped`: no valid source value holds one, but a
///   row written into the database by hand can, and must not fail the export of every row).
/// - CSV (RFC 4180): a value holding a comma, a quote, CR or LF is quoted, its quotes doubled;
///   CRLF after each row.
/// - In both, a value that starts with `=`, `+`, `-`, `@`, a tab, CR or `'` gets a leading `'`
///   (`CellText.marked`), so a spreadsheet shows it as text rather than running it as a formula;
///   the import takes it off again.
/// - OPML 2.0: one folder outline per category (its name), each feed an `rss` outline with `text`
///   and `title` (the name), `xmlUrl`, `htmlUrl`, and the other columns as `pulse:` attributes
///   (`SourceFile.opmlNamespace`); sources of no known category are outlines of the body. Tabs and
///   line breaks are written as character references, so they survive attribute normalisation; a
///   character XML 1.0 cannot hold (C0 controls, U+FFFE, U+FFFF) is refused.
public enum SourceExport {
    public static func render(_ sources: [SourceDefinition], categories: [CategoryDefinition],
                              as format: SourceFileFormat) throws(SourceExportError) -> String {
        switch format {
        case .tsv: return delimited(sources, separator: "\t", lineEnd: "\n", field: tsvField)
        case .csv: return delimited(sources, separator: ",", lineEnd: "\r\n", field: csvField)
        case .opml: return try opml(sources, categories: categories)
        }
    }

    /// The cells of a source, in `SourceTable.columns` order.
    static func cells(_ source: SourceDefinition) -> [(column: String, value: String?)] {
        let cells: [(String, String?)] = [
            ("slug", source.slug), ("name", source.name), ("feed_url", source.feedURL), ("website_url", source.websiteURL),
            ("category", source.categorySlug), ("language", source.language),
            ("fetch_interval_hours", String(source.fetchIntervalHours)),
            ("max_content_length", source.maxContentLength.map(String.init)),
            ("active", source.isActive.map { $0 ? "true" : "false" }),
            ("language_detection", source.languageDetection ? "true" : "false"),
        ]
        assert(cells.map(\.0) == SourceTable.columns, "export columns out of step with SourceTable.columns")
        return cells
    }

    private static func delimited(_ sources: [SourceDefinition], separator: String, lineEnd: String,
                                  field: (String) -> String) -> String {
        var text = SourceTable.columns.joined(separator: separator) + lineEnd
        for source in sources {
            var first = true
            for (_, value) in cells(source) {
                if !first { text += separator }
                first = false
                text += field(value ?? "")
            }
            text += lineEnd
        }
        return text
    }

    private static func tsvField(_ value: String) -> String {
        CellText.tsvEscaped(CellText.marked(value))
    }

    private static func csvField(_ raw: String) -> String {
        let value = CellText.marked(raw)
        guard value.utf8.contains(where: { $0 == 0x2C || $0 == 0x22 || $0 == 0x0A || $0 == 0x0D }) else { return value }
        var quoted = "\""
        for character in value.unicodeScalars {
            if character == "\"" { quoted += "\"" }
            quoted.unicodeScalars.append(character)
        }
        return quoted + "\""
    }

    private static func opml(_ sources: [SourceDefinition], categories: [CategoryDefinition]) throws(SourceExportError) -> String {
        var text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <opml version="2.0" xmlns:pulse="\(SourceFile.opmlNamespace)">
              <head>
                <title>pulse-ingest sources</title>
              </head>
              <body>

            """
        var written = Set<String>()
        for category in categories {
            let members = sources.filter { $0.categorySlug == category.slug }
            guard !members.isEmpty, written.insert(category.slug).inserted else { continue }
            let name = try attribute(category.name, slug: members[0].slug, column: "category name")
            text += "    <outline text=\(name) title=\(name)>\n"
            for source in members { text += try outline(source, indent: "      ") }
            text += "    </outline>\n"
        }
        for source in sources where !written.contains(source.categorySlug) {
            text += try outline(source, indent: "    ")
        }
        return text + "  </body>\n</opml>\n"
    }

    private static func outline(_ source: SourceDefinition, indent: String) throws(SourceExportError) -> String {
        var standard = "", ours = ""
        for (column, value) in cells(source) {
            guard let value, !(column == "category" && value.isEmpty) else { continue }
            let quoted = try attribute(value, slug: source.slug, column: column)
            switch column {
            case "name": standard += " text=\(quoted) title=\(quoted)"
            case "feed_url": standard += " xmlUrl=\(quoted)"
            case "website_url": standard += " htmlUrl=\(quoted)"
            default: ours += " pulse:\(column)=\(quoted)"
            }
        }
        return indent + "<outline type=\"rss\"" + standard + ours + "/>\n"
    }

    /// `value` as a quoted XML attribute value.
    private static func attribute(_ value: String, slug: String, column: String) throws(SourceExportError) -> String {
        let escaped = try TextScan.escaping(value) { (scalar) throws(SourceExportError) -> String? in
            if let escape = xmlEscapes[scalar] { return escape }
            guard scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF else { return nil }
            throw SourceExportError(slug: slug, column: column,
                                    reason: "holds U+\(TextScan.hex(scalar.value, width: 1, uppercase: true)), which XML 1.0 cannot carry")
        }
        return "\"" + escaped + "\""
    }

    private static let xmlEscapes: [Unicode.Scalar: String] = [
        "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "\t": "&#9;", "\n": "&#10;", "\r": "&#13;",
    ]
}
