// libyaml itself (Debian's libyaml-dev): the YAML syntax, its limits (nesting depth included) and
// its error texts are the library's, not ours.
import CLibYAML
import CLibYAMLFunctions

/// Where a node starts in the file, 1-based.
struct SourceMark: Sendable, Equatable {
    let line: Int
    let column: Int
}

/// A YAML syntax problem, worded for the operator and placed on its line.
struct YAMLSyntaxError: Error, Equatable {
    let line: Int?
    let message: String
}

/// One YAML document composed from libyaml's events into a flat array of nodes.
///
/// Hand-written, the one part of reading YAML here that is: Yams' composer turns the same events
/// into `Node` enums with a `Tag` object per node and checks each mapping's keys for duplicates by
/// grouping them in a dictionary of hashed nodes. On the shipped feeds.yaml that was 20.4M of
/// --check-config's 33.8M instructions, where libyaml's parsing is 6M.
///
/// The nodes are values in one array and containers hold index ranges, so composing is one loop
/// with an explicit stack (no recursion on deep nesting, in either composing or freeing) and a
/// node costs no allocation beyond its text.
final class YAMLTree {
    enum Kind: UInt8 { case scalar, sequence, mapping, alias }

    fileprivate struct Entry {
        var kind: Kind
        var isPlain: Bool
        var isAnchored: Bool
        var line: Int32
        var column: Int32
        var text: String
        /// Range in `children`: a mapping's keys and values alternate.
        var childStart: Int32 = 0
        var childEnd: Int32 = 0
    }

    /// Deepest nesting of sequences and mappings accepted (libyaml's own limit where it has one).
    static let maxNesting = 1_000

    // Immutable once composed: reading a node takes no exclusivity check.
    fileprivate let entries: [Entry]
    fileprivate let children: [Int32]
    private let rootIndex: Int?
    var root: ConfigNode? { rootIndex.map { ConfigNode(tree: self, index: $0) } }

    private init(_ builder: Builder) {
        entries = builder.entries
        children = builder.children
        rootIndex = builder.rootIndex
    }

    /// The tree the YAML `[{key: value, ...}, ...]` composes to, built from rows of cells (an
    /// imported file's rows, `SourceTable`), each node placed on its row's or cell's line. A cell
    /// is a plain scalar unless its text is one of YAML's null spellings: a file's cell is never
    /// null (an empty one is left out by its reader), so `~` is the text `~`, while numbers and
    /// booleans are read by the same rules as in feeds.yaml.
    static func rows(_ rows: [(line: Int, cells: [(key: String, value: String, line: Int)])]) throws(YAMLSyntaxError) -> YAMLTree {
        var builder = Builder()
        builder.openContainer(.sequence, isAnchored: false, line: Int32(clamping: rows.first?.line ?? 1), column: 1)
        for row in rows {
            builder.openContainer(.mapping, isAnchored: false, line: Int32(clamping: row.line), column: 1)
            for cell in row.cells {
                let line = Int32(clamping: cell.line)
                builder.attachScalar(cell.key, isPlain: true, line: line, column: 1)
                builder.attachScalar(cell.value, isPlain: !MappingView.isNullSpelling(cell.value), line: line, column: 1)
            }
            try builder.closeContainer()
        }
        try builder.closeContainer()
        return YAMLTree(builder)
    }

    /// The document in `yaml`, or nil when it holds none (empty, or only comments).
    /// More than one document, a duplicate key in a mapping, or any libyaml error throws.
    static func compose(_ yaml: String) throws(YAMLSyntaxError) -> YAMLTree {
        var builder = Builder()
        var text = yaml
        let failure: YAMLSyntaxError? = text.withUTF8 { bytes in
            do throws(YAMLSyntaxError) {
                try builder.compose(bytes)
                return nil
            } catch {
                return error
            }
        }
        if let failure { throw failure }
        return YAMLTree(builder)
    }

    private struct Builder {
        var entries: [Entry] = []
        var children: [Int32] = []
        var rootIndex: Int?
        /// The members of each open container, innermost last.
        var open: [(entry: Int, members: [Int32])] = []

        mutating func compose(_ bytes: UnsafeBufferPointer<UInt8>) throws(YAMLSyntaxError) {
            var parser = yaml_parser_t()
            guard pulse_yaml_parser_initialize(&parser) != 0 else {
                throw YAMLSyntaxError(line: nil, message: "YAML error: out of memory")
            }
            defer { pulse_yaml_parser_delete(&parser) }
            pulse_yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING)
            // An empty text holds no document (and may have no base address to give libyaml).
            guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
            pulse_yaml_parser_set_input_string(&parser, base, bytes.count)
            var documents = 0
            var event = yaml_event_t()
            while true {
                guard pulse_yaml_parser_parse(&parser, &event) != 0 else { throw YAMLTree.error(of: parser, in: bytes) }
                defer { pulse_yaml_event_delete(&event) }
                let mark = event.start_mark
                let line = Int32(clamping: mark.line + 1), column = Int32(clamping: mark.column + 1)
                switch event.type {
                case YAML_DOCUMENT_START_EVENT:
                    if documents > 0 {
                        throw YAMLSyntaxError(
                            line: Int(line),
                            message: "YAML syntax error: expected a single document in the stream, but found another document")
                    }
                case YAML_DOCUMENT_END_EVENT:
                    documents += 1
                case YAML_STREAM_END_EVENT:
                    return
                case YAML_SCALAR_EVENT:
                    let scalar = event.data.scalar
                    let text = scalar.value.map {
                        String(decoding: UnsafeBufferPointer(start: $0, count: scalar.length), as: UTF8.self)
                    } ?? ""
                    attach(Entry(kind: .scalar, isPlain: scalar.style == YAML_PLAIN_SCALAR_STYLE,
                                 isAnchored: scalar.anchor != nil, line: line, column: column, text: text))
                case YAML_ALIAS_EVENT:
                    attach(Entry(kind: .alias, isPlain: false, isAnchored: true, line: line, column: column, text: ""))
                case YAML_SEQUENCE_START_EVENT, YAML_MAPPING_START_EVENT:
                    // Yams' copy of libyaml stopped at 1000 levels; Debian's 0.2.5 has no limit, so
                    // the composer keeps it (the tree's readers are not all iterative).
                    guard open.count < YAMLTree.maxNesting else {
                        throw YAMLSyntaxError(line: Int(line), message: "YAML syntax error: more than \(YAMLTree.maxNesting) levels of nesting")
                    }
                    let isMapping = event.type == YAML_MAPPING_START_EVENT
                    let anchor = isMapping ? event.data.mapping_start.anchor : event.data.sequence_start.anchor
                    openContainer(isMapping ? .mapping : .sequence, isAnchored: anchor != nil, line: line, column: column)
                case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
                    try closeContainer()
                default:
                    continue
                }
            }
        }

        mutating func openContainer(_ kind: Kind, isAnchored: Bool, line: Int32, column: Int32) {
            entries.append(Entry(kind: kind, isPlain: false, isAnchored: isAnchored, line: line, column: column, text: ""))
            open.append((entries.count - 1, []))
        }

        mutating func closeContainer() throws(YAMLSyntaxError) {
            guard let container = open.popLast() else { return }
            if entries[container.entry].kind == .mapping { try checkDuplicateKeys(container.members) }
            entries[container.entry].childStart = Int32(children.count)
            children.append(contentsOf: container.members)
            entries[container.entry].childEnd = Int32(children.count)
            attach(existing: container.entry)
        }

        mutating func attachScalar(_ text: String, isPlain: Bool, line: Int32, column: Int32) {
            attach(Entry(kind: .scalar, isPlain: isPlain, isAnchored: false, line: line, column: column, text: text))
        }

        private mutating func attach(_ entry: Entry) {
            entries.append(entry)
            attach(existing: entries.count - 1)
        }

        private mutating func attach(existing index: Int) {
            if open.isEmpty {
                rootIndex = index
            } else {
                open[open.count - 1].members.append(Int32(index))
            }
        }

        /// A key written twice in one mapping is an error, as YAML says (and as Yams reported it).
        /// Scalar keys are compared by their text; other keys are refused later by the walk.
        private func checkDuplicateKeys(_ members: [Int32]) throws(YAMLSyntaxError) {
            // Keys sit at the even members; a non-scalar key is refused later by the walk.
            let earlier = earlierDuplicates(stride(from: 0, to: members.count, by: 2).map { position in
                let key = entries[Int(members[position])]
                return key.kind == .scalar ? key.text : nil
            })
            guard let repeated = earlier.firstIndex(where: { $0 != nil }), let first = earlier[repeated] else { return }
            let key = entries[Int(members[2 * repeated])]
            throw YAMLSyntaxError(
                line: Int(key.line),
                message: "duplicate key '\(FieldRules.printable(String(key.text.prefix(80))))' in a mapping "
                    + "(first on line \(entries[Int(members[2 * first])].line))")
        }
    }

    /// libyaml's own words for what stopped it, with the line it names.
    fileprivate static func error(of parser: yaml_parser_t, in bytes: UnsafeBufferPointer<UInt8>) -> YAMLSyntaxError {
        let problem = parser.problem.map { String(cString: $0) } ?? "unknown problem"
        switch parser.error {
        case YAML_READER_ERROR:
            // The reader reports a byte offset, not a mark.
            let end = min(parser.problem_offset, bytes.count)
            let line = 1 + bytes[..<end].reduce(0) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
            return YAMLSyntaxError(line: line, message: "cannot read YAML: \(problem)")
        case YAML_SCANNER_ERROR, YAML_PARSER_ERROR:
            let context = parser.context.map { " (\(String(cString: $0)) at line \(parser.context_mark.line + 1))" } ?? ""
            return YAMLSyntaxError(line: Int(parser.problem_mark.line) + 1, message: "YAML syntax error: \(problem)\(context)")
        default:
            return YAMLSyntaxError(line: nil, message: "YAML error: \(problem)")
        }
    }
}

/// A node of a composed `YAMLTree`.
struct ConfigNode {
    struct Scalar {
        let string: String
        /// Unquoted, the only style in which YAML reads a scalar as a number, boolean or null.
        let isPlain: Bool
    }

    /// A mapping's key/value pairs, in file order.
    struct Mapping: RandomAccessCollection {
        fileprivate let tree: YAMLTree
        fileprivate let start: Int
        let count: Int
        var startIndex: Int { 0 }
        var endIndex: Int { count }
        subscript(position: Int) -> (key: ConfigNode, value: ConfigNode) {
            let base = start + 2 * position
            return (ConfigNode(tree: tree, index: Int(tree.children[base])),
                    ConfigNode(tree: tree, index: Int(tree.children[base + 1])))
        }
    }

    fileprivate let tree: YAMLTree
    fileprivate let index: Int

    private var entry: YAMLTree.Entry { tree.entries[index] }

    var kind: YAMLTree.Kind { tree.entries[index].kind }
    var mark: SourceMark? { SourceMark(line: Int(entry.line), column: Int(entry.column)) }
    /// Anchored (`&name`) or an alias (`*name`): both are refused by the walk.
    var isAnchored: Bool { tree.entries[index].isAnchored }

    var scalar: Scalar? {
        let entry = entry
        return entry.kind == .scalar ? Scalar(string: entry.text, isPlain: entry.isPlain) : nil
    }

    var mapping: Mapping? {
        let entry = entry
        guard entry.kind == .mapping else { return nil }
        return Mapping(tree: tree, start: Int(entry.childStart), count: Int(entry.childEnd - entry.childStart) / 2)
    }

    var sequence: [ConfigNode]? {
        let entry = entry
        guard entry.kind == .sequence else { return nil }
        return (Int(entry.childStart)..<Int(entry.childEnd)).map { ConfigNode(tree: tree, index: Int(tree.children[$0])) }
    }

    /// YAML 1.1's integer spellings (signs, `_`, 0x/0o/0b, base 60), as Yams read a plain scalar.
    var int: Int? { scalar.flatMap { YAMLNumbers.int($0.string) } }
    /// YAML 1.1's float spellings (`.inf`, `_`, base 60), as Yams read a plain scalar.
    var float: Double? { scalar.flatMap { YAMLNumbers.float($0.string) } }
}
