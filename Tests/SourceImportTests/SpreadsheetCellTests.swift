import FeedParser
import PulseConfig
import PulseModel
@testable import SourceImport
import Testing

/// Exported cells a spreadsheet would run as formulas, and values TSV cannot hold as they are.
@Suite("spreadsheet-safe cells")
struct SpreadsheetCellTests {
    static let categories = ExportTests.categories

    /// Names (and a website) that start as formulas do, or with the mark itself.
    static let risky: [SourceDefinition] = ["=HYPERLINK(\"http://evil.example\")", "+1+2", "-2+3", "@SUM(A1)",
                                            "\tTabbed", "\rReturned", "'quoted'", "''twice", "plain", "a=b"]
        .enumerated().map { index, name in
            SourceDefinition(slug: "risky-\(index)", name: name, feedURL: "https://risky\(index).example/rss",
                             websiteURL: nil, categorySlug: "world", language: "en", fetchIntervalHours: 2,
                             maxContentLength: nil, isActive: true, languageDetection: true)
        }

    @Test(arguments: [SourceFileFormat.csv, .tsv])
    func noCellStartsAFormula(format: SourceFileFormat) throws {
        let text = try SourceExport.render(Self.risky, categories: Self.categories, as: format)
        let file = SourceFile.read(Array(text.utf8), name: "x", format: format, opml: OPMLParser.parse)
        #expect(file.issues.isEmpty)
        // The cells as a spreadsheet reads them: split, unquoted, nothing taken off.
        let records = format == .tsv ? DelimitedText.tsvRecords(Array(text.utf8)[...])
            : DelimitedText.csvRecords(Array(text.utf8)[...]).records
        #expect(records.count == Self.risky.count + 1)
        let starts = records.flatMap(\.fields).compactMap { $0.value.unicodeScalars.first }
        #expect(!starts.contains { ["=", "+", "-", "@", "\t", "\r"].contains($0) }, "\(text)")
        #expect(records.dropFirst().map { $0.fields[1].value }.prefix(4)
                == ["'=HYPERLINK(\"http://evil.example\")", "'+1+2", "'-2+3", "'@SUM(A1)"])
        #expect(records[9].fields[1].value == "plain" && records[10].fields[1].value == "a=b")
    }

    @Test(arguments: [SourceFileFormat.csv, .tsv])
    func theMarkComesOffOnImport(format: SourceFileFormat) throws {
        let text = try SourceExport.render(Self.risky, categories: Self.categories, as: format)
        let rows = SourceFile.read(Array(text.utf8), name: "x", format: format, opml: OPMLParser.parse).rows.map { $0.row.value("name") }
        #expect(rows == Self.risky.map(\.name))
        // The valid ones import as sources again (a tab or CR in a name is refused by the source rules).
        let valid = Self.risky.filter { !$0.name.contains("\t") && !$0.name.contains("\r") }
        let again = try SourceExport.render(valid, categories: Self.categories, as: format)
        #expect(try sources(again, as: format, settings: settings(stored: valid)) == valid)
    }

    /// A tab or a line break written into the database by hand: escaped, one row per line, and the
    /// other rows exported as ever (one such row used to fail the whole export).
    @Test func tsvEscapesControlCharactersInsteadOfFailing() throws {
        var broken = ExportTests.sample[0]
        broken.name = "two\tcolumns\nand a line \\ with a bell\u{7} and \r"
        let text = try SourceExport.render([broken, ExportTests.sample[1]], categories: Self.categories, as: .tsv)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 4 && lines[3].isEmpty)
        #expect(lines.allSatisfy { $0.isEmpty || $0.split(separator: "\t", omittingEmptySubsequences: false).count == 10 })
        #expect(lines[1].hasPrefix("alpha\ttwo\\tcolumns\\nand a line \\\\ with a bell\\x07 and \\r\thttps://"))
        // Read back, the value is the database's again; the source rules then refuse it on its line.
        let file = SourceFile.read(Array(text.utf8), name: "x.tsv", format: .tsv, opml: OPMLParser.parse)
        #expect(file.rows.map { $0.row.value("name") } == [broken.name, ExportTests.sample[1].name])
        #expect(problems(text, as: .tsv, settings: settings(stored: [broken, ExportTests.sample[1]]))
                == ["2: name must not contain control or bidirectional-override characters"])
    }

    @Test(arguments: ["", "plain", "back\\slash", "\\t is not a tab", "\u{0}\u{1F}\u{7F}", "é\t✓\n", "\\x41", "end\\"])
    func tsvEscapesRoundTrip(value: String) {
        let escaped = CellText.tsvEscaped(value)
        #expect(!escaped.utf8.contains { $0 < 0x20 || $0 == 0x7F })
        #expect(CellText.tsvUnescaped(escaped) == value)
    }

    @Test func aBackslashAnExportNeverWritesIsKept() {
        #expect(CellText.tsvUnescaped("C:\\dir\\x41\\") == "C:\\dir\\x41\\")
        #expect(CellText.tsvUnescaped("a\\x1fb\\x7F") == "a\u{1F}b\u{7F}")
    }
}
