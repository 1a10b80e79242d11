import Yams

/// Where a node starts in the file, 1-based.
struct SourceMark: Sendable, Equatable {
    let line: Int
    let column: Int
}

/// A YAML syntax problem, worded for the operator and placed on its line.
struct YAMLSyntaxError: Error, Equatable {
    let line: Int?
    let message: String

    /// A key written twice in one mapping, reported on the repeat (feeds.yaml, and a row of an
    /// imported file, `SourceTable`).
    static func duplicateKey(_ key: String, line: Int?, firstLine: Int) -> YAMLSyntaxError {
        YAMLSyntaxError(line: line, message: "duplicate key '\(FieldRules.printable(String(key.prefix(80))))' in a mapping "
                            + "(first on line \(firstLine))")
    }
}

/// A node as the validation reads it: from feeds.yaml as Yams composed it (`compose`), or from the
/// rows of an imported file (`SourceTable`). Each keeps its line, so every message names it.
struct ConfigNode {
    struct Scalar {
        let string: String
        /// Unquoted, the only style in which YAML reads a scalar as a number, boolean or null.
        let isPlain: Bool
    }

    enum Content {
        case scalar(Scalar)
        case sequence([ConfigNode])
        /// Key/value pairs in file order.
        case mapping([(key: ConfigNode, value: ConfigNode)])
        /// An alias (`*name`): never expanded, refused by the walk.
        case alias
    }

    let content: Content
    let mark: SourceMark?
    /// Anchored (`&name`) or an alias (`*name`): both are refused by the walk.
    let isAnchored: Bool

    init(_ content: Content, mark: SourceMark?, isAnchored: Bool = false) {
        self.content = content
        self.mark = mark
        self.isAnchored = isAnchored
    }

    var scalar: Scalar? {
        if case let .scalar(scalar) = content { return scalar }
        return nil
    }

    var mapping: [(key: ConfigNode, value: ConfigNode)]? {
        if case let .mapping(pairs) = content { return pairs }
        return nil
    }

    var sequence: [ConfigNode]? {
        if case let .sequence(nodes) = content { return nodes }
        return nil
    }

    /// YAML 1.1's integer spellings (signs, `_`, 0x/0o/0b, base 60), as Yams reads a plain scalar.
    var int: Int? { scalar.flatMap { YAMLNumbers.int($0.string) } }
    /// YAML 1.1's float spellings (`.inf`, `_`, base 60), as Yams reads a plain scalar.
    var float: Double? { scalar.flatMap { YAMLNumbers.float($0.string) } }
}

extension ConfigNode {
    /// The document in `yaml` composed by Yams, or nil when it holds none (empty, or only comments).
    /// More than one document, a duplicate key in a mapping, or any libyaml error throws.
    static func compose(_ yaml: String) throws(YAMLSyntaxError) -> ConfigNode? {
        do {
            // `.basic` resolves no tags (the walk reads plain scalars itself), so Yams compares
            // mapping keys by their text: quoting does not make two keys different.
            return try converting(Parser(yaml: yaml, resolver: .basic))
        } catch let error as YamlError {
            throw syntaxError(error, in: yaml)
        } catch {
            throw YAMLSyntaxError(line: nil, message: "YAML error: \(error)")
        }
    }

    /// The document `parser` composes. A node's anchor is held (weakly) by its parser only, so
    /// the parser lives until the tree is converted.
    private static func converting(_ parser: Parser) throws -> ConfigNode? {
        guard let root = try parser.singleRoot() else { return nil }
        var anchors: Set<String> = []
        return withExtendedLifetime(parser) { ConfigNode(root, anchors: &anchors) }
    }

    /// `node` and what it holds. Yams composes an alias as the anchored node itself (with the
    /// anchor's mark): an anchor met again is an alias, kept as a leaf, so nothing is expanded
    /// ("billion laughs") before the walk refuses it.
    private init(_ node: Node, anchors: inout Set<String>) {
        let mark = node.mark.map { SourceMark(line: $0.line, column: $0.column) }
        let isAnchored = node.anchor != nil
        if let anchor = node.anchor, !anchors.insert(anchor.rawValue).inserted {
            self.init(.alias, mark: mark, isAnchored: true)
            return
        }
        switch node {
        case let .scalar(scalar):
            self.init(.scalar(Scalar(string: scalar.string, isPlain: scalar.style == .plain)), mark: mark,
                      isAnchored: isAnchored)
        case let .sequence(sequence):
            self.init(.sequence(sequence.map { ConfigNode($0, anchors: &anchors) }), mark: mark, isAnchored: isAnchored)
        case let .mapping(mapping):
            var pairs: [(key: ConfigNode, value: ConfigNode)] = []
            pairs.reserveCapacity(mapping.count)
            for (key, value) in mapping {
                let key = ConfigNode(key, anchors: &anchors)
                pairs.append((key, ConfigNode(value, anchors: &anchors)))
            }
            self.init(.mapping(pairs), mark: mark, isAnchored: isAnchored)
        case .alias:
            self.init(.alias, mark: mark, isAnchored: true)
        }
    }

    /// libyaml's own words for what stopped it (through Yams), with the line it names.
    private static func syntaxError(_ error: YamlError, in yaml: String) -> YAMLSyntaxError {
        switch error {
        case let .reader(problem, offset, _, _):
            // The reader reports an offset (in characters), not a mark.
            let line = offset.map { 1 + yaml.prefix($0).reduce(0) { $1 == "\n" || $1 == "\r\n" ? $0 + 1 : $0 } }
            return YAMLSyntaxError(line: line, message: "cannot read YAML: \(problem)")
        case let .scanner(context, problem, mark, _), let .parser(context, problem, mark, _):
            if problem.hasPrefix("Maximum nesting level reached") {
                return YAMLSyntaxError(line: mark.line, message: "YAML syntax error: more than 1000 levels of nesting")
            }
            let context = context.map { " (\($0.text) at line \($0.mark.line))" } ?? ""
            return YAMLSyntaxError(line: mark.line, message: "YAML syntax error: \(problem)\(context)")
        case let .composer(context, problem, mark, _):
            // An undefined alias, or a second document ("expected a single document in the
            // stream", "but found another document").
            let text = (context.map { [$0.text] } ?? []) + [problem]
            return YAMLSyntaxError(line: mark.line, message: "YAML syntax error: " + text.joined(separator: ", "))
        case let .duplicatedKeysInMapping(duplicates, context):
            return duplicateKeyError(yaml, key: duplicates.first ?? "", first: context.mark)
        case .memory:
            return YAMLSyntaxError(line: nil, message: "YAML error: out of memory")
        default:
            return YAMLSyntaxError(line: nil, message: "YAML error: \(error)")
        }
    }

    /// A key written twice in a mapping, reported on its first repeat. Yams names the repeated
    /// keys and where one of them is first, so the mapping is found by composing the text again
    /// with that occurrence (and any other Yams then names) renamed. Where that fails, the first
    /// occurrence's line is given.
    private static func duplicateKeyError(_ yaml: String, key: String, first: Mark) -> YAMLSyntaxError {
        let fallback = YAMLSyntaxError.duplicateKey(key, line: first.line, firstLine: first.line)
        var lines = yaml.split(separator: "\n", omittingEmptySubsequences: false).map { Array(String($0).unicodeScalars) }
        var current = first
        // Each round renames one first occurrence; another duplicate (in this mapping or a later
        // one) is renamed in turn, each with its own prefix so no two renamed keys are equal.
        for round in 0..<50 {
            let row = current.line - 1, column = current.column - 1
            guard lines.indices.contains(row), lines[row].indices.contains(column) else { return fallback }
            let quoted = lines[row][column] == "\"" || lines[row][column] == "'"
            lines[row].insert(contentsOf: "\(renamedPrefix)\(round)_".unicodeScalars, at: quoted ? column + 1 : column)
            let text = lines.map { String(String.UnicodeScalarView($0)) }.joined(separator: "\n")
            do {
                let mark = SourceMark(line: first.line, column: first.column)
                return try converting(Parser(yaml: text, resolver: .basic))?.firstRepeatedKey(inMappingWith: mark) ?? fallback
            } catch let YamlError.duplicatedKeysInMapping(_, context) {
                current = context.mark
            } catch {
                return fallback
            }
        }
        return fallback
    }

    private static let renamedPrefix = "pulse_renamed_key_"

    /// The first key repeating an earlier one (compared as written, renamed or not) in the mapping
    /// holding a key at `first`. Depth-first in file order; aliases are leaves.
    private func firstRepeatedKey(inMappingWith first: SourceMark) -> YAMLSyntaxError? {
        switch content {
        case let .sequence(nodes):
            for node in nodes { if let found = node.firstRepeatedKey(inMappingWith: first) { return found } }
        case let .mapping(pairs):
            if pairs.contains(where: { $0.key.mark == first }) {
                let keys = pairs.map { Self.originalText($0.key.scalar?.string) }
                let earlier = earlierDuplicates(keys)
                guard let repeated = earlier.firstIndex(where: { $0 != nil }), let original = earlier[repeated],
                      let key = keys[repeated], let firstLine = pairs[original].key.mark?.line else { return nil }
                return YAMLSyntaxError.duplicateKey(key, line: pairs[repeated].key.mark?.line, firstLine: firstLine)
            }
            for pair in pairs {
                if let found = pair.key.firstRepeatedKey(inMappingWith: first)
                    ?? pair.value.firstRepeatedKey(inMappingWith: first) { return found }
            }
        case .scalar, .alias:
            break
        }
        return nil
    }

    /// `text` without the prefix `duplicateKeyError` gave it.
    private static func originalText(_ text: String?) -> String? {
        guard let text, text.hasPrefix(renamedPrefix) else { return text }
        let rest = text.dropFirst(renamedPrefix.count).drop { $0 != "_" }
        return String(rest.dropFirst())
    }
}
