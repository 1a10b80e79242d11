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

    /// Why `slug` is not a category of `categories`, or nil.
    public static func categoryProblem(_ slug: String, in categories: [CategoryConfig]) -> String? {
        SourceListParser.categoryProblem(slug, in: categories)
    }

    /// Why `slug` is not a valid source slug, or nil.
    public static func slugProblem(_ slug: String) -> String? { FieldRules.slugProblem(slug) }

    /// The rows as sources, validated exactly as feeds.yaml's `sources:` list with these defaults and
    /// categories. Every problem comes back, in line order, each naming `file`, its line and the
    /// source; the sources are usable only when there is none.
    public static func validate(_ rows: [SourceRow], file: String, defaults: SourceDefaults,
                                categories: [CategoryConfig]) -> (sources: [SourceConfig], issues: [ConfigIssue]) {
        let entries: [ConfigNode]
        do {
            entries = try rows.map(node)
        } catch {
            // Only a key given twice in one row gets here.
            return ([], [ConfigIssue(file: file, line: error.line, source: nil, message: error.message)])
        }
        let diag = Diagnostics(file: file)
        let sources = SourceListParser(diag: diag, defaults: defaults, categories: categories)
            .parse(entries)
        return (sources, diag.sortedIssues)
    }

    /// The node the YAML `{key: value, ...}` composes to, each cell placed on its line. A cell is
    /// a plain scalar unless its text is one of YAML's null spellings: a file's cell is never null
    /// (an empty one is left out by its reader), so `~` is the text `~`, while numbers and booleans
    /// are read by the same rules as in feeds.yaml.
    private static func node(_ row: SourceRow) throws(YAMLSyntaxError) -> ConfigNode {
        let earlier = earlierDuplicates(row.cells.map(\.key))
        if let repeated = earlier.firstIndex(where: { $0 != nil }), let first = earlier[repeated] {
            throw YAMLSyntaxError.duplicateKey(row.cells[repeated].key, line: row.cells[repeated].line,
                                               firstLine: row.cells[first].line)
        }
        return ConfigNode(.mapping(row.cells.map { cell in
            let mark = SourceMark(line: cell.line, column: 1)
            return (ConfigNode(.scalar(.init(string: cell.key, isPlain: true)), mark: mark),
                    ConfigNode(.scalar(.init(string: cell.value, isPlain: !MappingView.isNullSpelling(cell.value))), mark: mark))
        }), mark: SourceMark(line: row.line, column: 1))
    }
}
