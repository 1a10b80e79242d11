import Foundation
import Testing
import Yams

@testable import PulseConfig

/// The composer on libyaml's events against Yams' composer (the one it replaced), and its own
/// refusals.
@Suite struct YAMLTreeTests {
    /// Node by node (kind, text, quoting, line, column, anchor), the shipped file and 400 generated
    /// documents compose to the tree Yams composes.
    @Test func composesTheTreeYamsComposes() throws {
        let root = try #require(packageRootWithFeeds(), "no directory with feeds.yaml and Package.swift above the tests")
        let shipped = try String(contentsOf: root.appendingPathComponent("feeds.yaml"), encoding: .utf8)
        var documents = [shipped]
        var random = SplitMix(seed: 0x5EED_CAFE)
        for _ in 0..<400 { documents.append(Self.generatedDocument(&random)) }
        var scalarsCompared = 0
        for document in documents {
            let yams: Parser
            let parsed: Node?
            do {
                yams = try Parser(yaml: document, resolver: .basic, encoding: .utf8)
                parsed = try yams.singleRoot()
            } catch {
                Issue.record("Yams: \(error)\n\(document)")
                continue
            }
            guard let expected = parsed else { Issue.record("no document:\n\(document)"); continue }
            let tree = try YAMLTree.compose(document)
            guard let root = tree.root else { Issue.record("no root:\n\(document)"); continue }
            if let found = withExtendedLifetime(yams, { Self.difference(root, expected, scalars: &scalarsCompared) }) {
                Issue.record("\(found):\n\(document)")
            }
        }
        #expect(scalarsCompared > 8_000)
    }

    /// The first difference between the two trees, nil when there is none; counts the scalars.
    private static func difference(_ node: ConfigNode, _ expected: Node, scalars: inout Int) -> String? {
        let line = expected.mark?.line ?? 0
        guard node.mark == expected.mark.map({ SourceMark(line: $0.line, column: $0.column) }) else {
            return "mark \(String(describing: node.mark)) at line \(line)"
        }
        guard node.isAnchored == (expected.anchor != nil) else { return "anchor at line \(line)" }
        switch expected {
        case let .scalar(scalar):
            guard let mine = node.scalar else { return "not a scalar at line \(line)" }
            guard mine.string == scalar.string, mine.isPlain == (scalar.style == .plain) else {
                return "scalar '\(mine.string)' (plain: \(mine.isPlain)) against '\(scalar.string)' (\(scalar.style))"
            }
            scalars += 1
            return nil
        case let .sequence(sequence):
            guard let mine = node.sequence, mine.count == sequence.count else { return "sequence at line \(line)" }
            for (element, expected) in zip(mine, sequence) {
                if let found = difference(element, expected, scalars: &scalars) { return found }
            }
            return nil
        case let .mapping(mapping):
            guard let mine = node.mapping, mine.count == mapping.count else { return "mapping at line \(line)" }
            for (index, pair) in zip(mine.indices, mapping) {
                if let found = difference(mine[index].key, pair.key, scalars: &scalars)
                    ?? difference(mine[index].value, pair.value, scalars: &scalars) { return found }
            }
            return nil
        case .alias:
            return "alias at line \(line)"
        }
    }

    /// The comparison itself sees each kind of difference.
    @Test func theComparisonFindsDifferences() throws {
        let pairs = [("a: 1\n", "a: '1'\n"), ("a: 1\n", "a: 2\n"), ("a: 1\n", "\na: 1\n"), ("a: 1\n", "a: &x 1\n"),
                     ("a: [1]\n", "a: [1, 2]\n"), ("a: {b: 1}\n", "a: [b]\n"), ("a: 1\n", "a: 1\nb: 2\n")]
        for (mine, theirs) in pairs {
            let parser = try Parser(yaml: theirs, resolver: .basic, encoding: .utf8)
            let expected = try #require(try parser.singleRoot())
            let root = try #require(try YAMLTree.compose(mine).root)
            var scalars = 0
            #expect(Self.difference(root, expected, scalars: &scalars) != nil, "\(mine) / \(theirs)")
        }
    }

    @Test func duplicateKeysAreRefusedInShortAndLongMappings() {
        let short = "version: 1\nsources:\n  - slug: a\n    name: A\n    slug: b\n"
        #expect(throws: YAMLSyntaxError(line: 5, message: "duplicate key 'slug' in a mapping (first on line 3)")) {
            try YAMLTree.compose(short)
        }
        // A long mapping (40 keys), the repeat at the end: the same answer.
        var long = (0..<40).map { "key\($0): \($0)" }
        long.append("key7: again")
        #expect(throws: YAMLSyntaxError(line: 41, message: "duplicate key 'key7' in a mapping (first on line 8)")) {
            try YAMLTree.compose(long.joined(separator: "\n"))
        }
        // The same text in a value, or quoted differently in another mapping, is no duplicate.
        #expect(throws: Never.self) { try YAMLTree.compose("a: a\nb: {a: 1}\nc: [a, a]\n'd': 1\n") }
        // Quoting does not make two keys different.
        #expect(throws: YAMLSyntaxError(line: 2, message: "duplicate key 'a' in a mapping (first on line 1)")) {
            try YAMLTree.compose("a: 1\n\"a\": 2\n")
        }
    }

    @Test func aSecondDocumentIsRefusedOnItsLine() {
        #expect(throws: YAMLSyntaxError(
            line: 3, message: "YAML syntax error: expected a single document in the stream, but found another document")) {
            try YAMLTree.compose("version: 1\n\n---\nversion: 2\n")
        }
        #expect(throws: Never.self) { try YAMLTree.compose("---\nversion: 1\n...\n") }
    }

    @Test func libyamlErrorsKeepTheirWordsAndLines() {
        // The reader counts bytes: the control character is on line 3.
        #expect(throws: YAMLSyntaxError(line: 3, message: "cannot read YAML: control characters are not allowed")) {
            try YAMLTree.compose("a: 1\nb: 2\nc: x\u{1}y\n")
        }
        do {
            _ = try YAMLTree.compose("a: [1, 2\nb: 3\n")
            Issue.record("an unclosed flow sequence composed")
        } catch {
            #expect(error.message.hasPrefix("YAML syntax error: did not find expected ',' or ']' (while parsing a flow sequence at line 1)"))
            #expect(error.line == 2)
        }
    }

    /// The whole text of a scalar is kept, an escaped NUL included (as Yams kept it), so the
    /// field rules see and refuse the control character.
    @Test func escapedNulIsKeptForTheRulesToRefuse() throws {
        let tree = try YAMLTree.compose("name: \"A\\0B\"\n")
        #expect(tree.root?.mapping?[0].value.scalar?.string == "A\u{0}B")
        let found = issues(oneSource(replacing: "name", with: "\"A\\0B\""))
        expectIssue(found, containing: "control", line: 4, source: "alpha")
    }

    /// Aliases are their own nodes, on their own lines, anchored: the walk refuses them there.
    @Test func aliasesAreNodesOnTheirOwnLines() throws {
        let tree = try YAMLTree.compose("a: &x 1\nb: *x\n")
        let mapping = try #require(tree.root?.mapping)
        #expect(mapping[0].value.isAnchored && mapping[0].value.scalar?.string == "1")
        #expect(mapping[1].value.isAnchored && mapping[1].value.kind == .alias && mapping[1].value.mark?.line == 2)
    }

    @Test(arguments: ["", "\n\n", "# a comment\n", "   "])
    func noDocumentHasNoRoot(text: String) throws {
        #expect(try YAMLTree.compose(text).root == nil)
    }

    /// The worst shapes near the 4 MB cap compose in one pass: a mapping of 200,000 distinct keys
    /// (the dictionary path of the duplicate check), and a sequence nested 990 deep, composed and
    /// freed without recursion.
    @Test func largeAndDeepDocumentsCompose() throws {
        let keys = (0..<200_000).map { "k\($0): v" }.joined(separator: "\n")
        #expect(try YAMLTree.compose(keys).root?.mapping?.count == 200_000)
        let deep = String(repeating: "[", count: 990) + String(repeating: "]", count: 990)
        var node = try #require(try YAMLTree.compose(deep).root)
        var depth = 1
        while let inner = node.sequence?.first { node = inner; depth += 1 }
        #expect(depth == 990)
    }

    // MARK: - Generated documents

    /// A block mapping with scalars in every style, flow collections, block sequences of mappings
    /// (the shape of `sources:`), anchors, comments and non-ASCII text.
    private static func generatedDocument(_ random: inout SplitMix) -> String {
        var lines: [String] = []
        if random.next(4) == 0 { lines.append("# generated") }
        for key in 0..<(1 + random.next(8)) {
            let name = "key\(key)" + (random.next(5) == 0 ? "_é" : "")
            switch random.next(6) {
            case 0:
                lines.append("\(name): \(scalar(&random))")
            case 1:
                lines.append("\(name): [" + (0..<random.next(4)).map { _ in scalar(&random, inFlow: true) }.joined(separator: ", ") + "]")
            case 2:
                let pairs = (0..<random.next(4)).map { "f\($0): \(scalar(&random, inFlow: true))" }
                lines.append("\(name): {" + pairs.joined(separator: ", ") + "}")
            case 3:
                lines.append("\(name):")
                for _ in 0..<(1 + random.next(5)) {
                    let fields = (0..<(1 + random.next(4))).map { "s\($0): \(scalar(&random))" }
                    lines.append("  - " + fields[0])
                    lines += fields.dropFirst().map { "    " + $0 }
                    if random.next(3) == 0 { lines.append("    # between entries") }
                }
            case 4:
                lines.append("\(name): \(random.next(2) == 0 ? "|" : ">")")
                lines += (0..<(1 + random.next(3))).map { "  line \($0) of \(name)" }
            default:
                lines.append("\(name): &anchor\(key) \(scalar(&random))")
            }
        }
        return lines.joined(separator: random.next(6) == 0 ? "\r\n" : "\n") + "\n"
    }

    private static func scalar(_ random: inout SplitMix, inFlow: Bool = false) -> String {
        let words = ["alpha", "https://example.com/feed.xml?a=1", "12", "0x1F", "true", "~", "null", "3.5", "ünïcödé",
                     "日本語", "with space", "-dash"]
        let word = words[random.next(words.count)]
        switch random.next(5) {
        case 0: return "\"" + word + "\\t\\u00e9\""
        case 1: return "'" + word + " it''s'"
        case 2: return inFlow ? "''" : ""
        default: return inFlow && word.contains(":") ? "\"\(word)\"" : word
        }
    }
}
