import Yams

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

/// feeds.yaml as Yams composes it: the walk reads Yams' own nodes, each with its `Mark` (line and
/// column). `.basic` resolves no tags (the walk reads plain scalars itself), so Yams compares
/// mapping keys by their text: quoting does not make two keys different.
enum YAMLDocument {
    /// `body` given the document's root, or nil when it holds none (empty, or only comments). More
    /// than one document, a duplicate key in a mapping, or any libyaml error throws. A node refers
    /// to its anchor weakly, the parser holding it: the parser lives until `body` returns, so an
    /// anchored node (and an alias, which Yams composes as the anchored node itself) is seen as such.
    static func reading<T>(_ yaml: String, _ body: (Node?) -> T) throws(YAMLSyntaxError) -> T {
        do {
            let parser = try Parser(yaml: yaml, resolver: .basic)
            let root = try parser.singleRoot()
            return withExtendedLifetime(parser) { body(root) }
        } catch let error as YamlError {
            throw syntaxError(error, in: yaml)
        } catch {
            throw YAMLSyntaxError(line: nil, message: "YAML error: \(error)")
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

    /// A key written twice in a mapping, reported on its first repeat in file order. Yams names
    /// only where one repeated key first occurs and composes no tree, and its public API gives
    /// neither the events nor a way to keep both keys. So that occurrence is renamed and the text
    /// composed again (each round renames the one Yams names next, at most 50 rounds; only a
    /// refused file gets here), and the mapping holding the first named key is read from the tree.
    /// Where that fails, the first occurrence's line is given.
    private static func duplicateKeyError(_ yaml: String, key: String, first: Mark) -> YAMLSyntaxError {
        let fallback = YAMLSyntaxError.duplicateKey(key, line: first.line, firstLine: first.line)
        var lines = yaml.split(separator: "\n", omittingEmptySubsequences: false).map { Array(String($0).unicodeScalars) }
        var current = first
        // Each renamed key gets its own prefix, so no two renamed keys are equal.
        for round in 0..<50 {
            let row = current.line - 1, column = current.column - 1
            guard lines.indices.contains(row), lines[row].indices.contains(column) else { return fallback }
            let quoted = lines[row][column] == "\"" || lines[row][column] == "'"
            lines[row].insert(contentsOf: "\(renamedPrefix)\(round)_".unicodeScalars, at: quoted ? column + 1 : column)
            let text = lines.map { String(String.UnicodeScalarView($0)) }.joined(separator: "\n")
            do {
                let parser = try Parser(yaml: text, resolver: .basic)
                guard let root = try parser.singleRoot() else { return fallback }
                var anchors: Set<ObjectIdentifier> = []
                return withExtendedLifetime(parser) { firstRepeatedKey(in: root, mappingWith: first, anchors: &anchors) }
                    ?? fallback
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
    /// holding a key at `first`. Depth-first in file order; an anchored node is entered once, so an
    /// alias is never expanded.
    private static func firstRepeatedKey(in node: Node, mappingWith first: Mark,
                                         anchors: inout Set<ObjectIdentifier>) -> YAMLSyntaxError? {
        if let anchor = node.anchor, !anchors.insert(ObjectIdentifier(anchor)).inserted { return nil }
        switch node {
        case let .sequence(nodes):
            for node in nodes {
                if let found = firstRepeatedKey(in: node, mappingWith: first, anchors: &anchors) { return found }
            }
        case let .mapping(pairs):
            if pairs.contains(where: { $0.key.mark?.line == first.line && $0.key.mark?.column == first.column }) {
                let keys = pairs.map { originalText($0.key.scalar?.string) }
                let earlier = earlierDuplicates(keys)
                guard let repeated = earlier.firstIndex(where: { $0 != nil }), let original = earlier[repeated],
                      let key = keys[repeated], let firstLine = pairs[original].key.mark?.line else { return nil }
                return YAMLSyntaxError.duplicateKey(key, line: pairs[repeated].key.mark?.line, firstLine: firstLine)
            }
            for (key, value) in pairs {
                if let found = firstRepeatedKey(in: key, mappingWith: first, anchors: &anchors)
                    ?? firstRepeatedKey(in: value, mappingWith: first, anchors: &anchors) { return found }
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
