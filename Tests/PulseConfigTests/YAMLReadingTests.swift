import Testing

@testable import PulseConfig

/// How the loader reads YAML itself (through Yams): duplicate keys, documents, libyaml's refusals,
/// scalars kept whole, empty files and large or deep ones.
@Suite struct YAMLReadingTests {
    @Test func duplicateKeysAreRefusedOnTheRepeatInShortAndLongMappings() {
        let short = "version: 1\nsources:\n  - slug: a\n    name: A\n    slug: b\n"
        #expect(issues(short).map(\.description) == ["bad.yaml:5: duplicate key 'slug' in a mapping (first on line 3)"])
        // A long mapping (40 keys), the repeat at the end: the same answer.
        var long = (0..<40).map { "key\($0): \($0)" }
        long.append("key7: again")
        #expect(issues(long.joined(separator: "\n")).map(\.description)
                == ["bad.yaml:41: duplicate key 'key7' in a mapping (first on line 8)"])
        // Quoting does not make two keys different.
        #expect(issues("a: 1\n\"a\": 2\n").map(\.description) == ["bad.yaml:2: duplicate key 'a' in a mapping (first on line 1)"])
        // In a flow mapping, on one line.
        #expect(issues("version: 1\nsources: [{slug: a, 'slug': b}]\n").map(\.description)
                == ["bad.yaml:2: duplicate key 'slug' in a mapping (first on line 2)"])
    }

    /// Several keys repeated in one mapping: the first repeat in file order is reported (Yams
    /// names them alphabetically), and only the first mapping that has one.
    @Test func theFirstRepeatIsReported() {
        let yaml = "version: 1\nsources:\n  - slug: a\n    name: A\n    slug: b\n    name: B\n    name: C\n"
            + "  - {slug: c, slug: d}\n"
        #expect(issues(yaml).map(\.description) == ["bad.yaml:5: duplicate key 'slug' in a mapping (first on line 3)"])
        let nested = "version: 1\nfetch:\n  max_per_host: 1\n  max_per_host: 2\nfetch: {}\n"
        #expect(issues(nested).map(\.description)
                == ["bad.yaml:4: duplicate key 'max_per_host' in a mapping (first on line 3)"])
    }

    /// The same text in a value, or as a key of another mapping, is no duplicate.
    @Test func equalTextElsewhereIsNoDuplicate() {
        let found = issues("version: 1\nsources: []\na: a\nb: {a: 1}\nc: [a, a]\n'd': 1\n")
        #expect(!found.contains { $0.message.contains("duplicate key") }, "\(found)")
        #expect(found.map(\.message).filter { $0.hasPrefix("unknown key") }.count == 4)
    }

    @Test func aSecondDocumentIsRefusedOnItsLine() throws {
        #expect(issues("version: 1\n\n---\nversion: 2\n").map(\.description) == [
            "bad.yaml:3: YAML syntax error: expected a single document in the stream, but found another document",
        ])
        _ = try ConfigLoader.parse(yaml: "---\nversion: 1\nsources: []\n...\n", file: "ok.yaml")
    }

    @Test func libyamlErrorsKeepTheirWordsAndLines() {
        // The reader counts characters: the control character is on line 3.
        #expect(issues("a: 1\nb: 2\nc: x\u{1}y\n").map(\.description)
                == ["bad.yaml:3: cannot read YAML: control characters are not allowed"])
        let unclosed = issues("a: [1, 2\nb: 3\n")
        #expect(unclosed.count == 1)
        #expect(unclosed.first?.line == 2)
        #expect(unclosed.first?.message.hasPrefix(
            "YAML syntax error: did not find expected ',' or ']' (while parsing a flow sequence at line 1)") == true)
        #expect(issues("x: " + String(repeating: "[", count: 5000)).map(\.description)
                == ["bad.yaml:1: YAML syntax error: more than 1000 levels of nesting"])
        #expect(issues("version: 1\nsources: *nowhere\n").map(\.description)
                == ["bad.yaml:2: YAML syntax error: found undefined alias"])
    }

    /// The whole text of a scalar is kept, an escaped NUL included, so the field rules see and
    /// refuse the control character.
    @Test func escapedNulIsKeptForTheRulesToRefuse() {
        let found = issues(oneSource(replacing: "name", with: "\"A\\0B\""))
        expectIssue(found, containing: "control", line: 4, source: "alpha")
    }

    /// An alias is never expanded: each is refused (Yams keeps no position for an alias, so it is
    /// placed on its anchor's line), and a document of nested aliases costs nothing to read.
    @Test func aliasesAreRefusedWithoutExpansion() {
        var lines = ["version: 1", "sources: []", "a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
        for level in 1..<30 {
            lines.append("a\(level): &a\(level) [" + Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", ") + "]")
        }
        let found = issues(lines.joined(separator: "\n"))
        #expect(found.count == 30, "\(found.map(\.description))")
        #expect(found.allSatisfy { $0.message.hasPrefix("unknown key") })
    }

    /// An alias in the sources list is refused as its anchor is, but (never expanded) it names no
    /// source and counts for no duplicate: Yams composes it as the anchored node itself, placed on
    /// the anchor's line, and the walk tells the two apart by that place.
    @Test func aliasedSourcesAreRefusedUnderTheirPosition() {
        let yaml = "version: 1\nsources:\n"
            + "  - &s {slug: a, name: A, feed_url: https://e.com/a, category: world, language: en}\n  - *s\n"
            + "  - {slug: *s, name: B, feed_url: https://e.com/b, category: world, language: en}\n"
        #expect(issues(yaml).map(\.description) == [
            "bad.yaml:3: source 'a': YAML anchors and aliases (&name / *name) are not supported",
            "bad.yaml:3: source '#2': YAML anchors and aliases (&name / *name) are not supported",
            "bad.yaml:3: source '#3': YAML anchors and aliases (&name / *name) are not supported",
            "bad.yaml:3: source '#3': 'slug' must not be empty",
        ])
        // An anchored null is a null; its alias is refused.
        let null = "version: 1\nx: &e {slug: q}\nsources:\n  - *e\n"
            + "  - {slug: r, name: &n ~, feed_url: https://e.com/r, category: world, language: en, active: *n}\n"
        #expect(issues(null).map(\.description) == [
            "bad.yaml:2: unknown key 'x' in 'top level'",
            "bad.yaml:2: source '#1': YAML anchors and aliases (&name / *name) are not supported",
            "bad.yaml:5: source 'r': 'name' must not be empty",
            "bad.yaml:5: source 'r': YAML anchors and aliases (&name / *name) are not supported",
        ])
    }

    /// Imported rows are read as the YAML they stand for: a cell YAML would read as something else
    /// (quotes, a backslash, `#`, `: `, a null spelling, characters outside printable ASCII) comes
    /// back as written, and one written like a number is read as feeds.yaml reads it.
    @Test func rowsAreReadAsTheYAMLTheyStandFor() throws {
        let names = ["Ação \"quoted\" \\ back", "# not a comment: x, {y} [z]", "~", "null", "😀 \u{2028}", "- a", "'single'",
                     "1:30", "yes", "&anchor", "*alias", "!tag", "%percent", "@at", "`tick`", "|", ">"]
        let rows = names.enumerated().map { index, name in
            SourceRow(line: index + 2, cells: [
                .init(key: "slug", value: "s\(index)", line: index + 2), .init(key: "name", value: name, line: index + 2),
                .init(key: "feed_url", value: "https://e.com/\(index)", line: index + 2),
                .init(key: "category", value: "world", line: index + 2), .init(key: "language", value: "en", line: index + 2),
            ])
        }
        let read = SourceTable.validate(rows, file: "rows.tsv", defaults: SourceDefaults(), categories: CategoryConfig.contractCategories)
        #expect(read.issues.filter { !$0.message.contains("name must not contain") }.isEmpty, "\(read.issues)")
        #expect(read.sources.map(\.name) == names.filter { !$0.unicodeScalars.contains("\u{2028}") })
        var hours = rows[0]
        hours.set("fetch_interval_hours", to: "3:00")
        let sexagesimal = SourceTable.validate([hours], file: "rows.tsv", defaults: SourceDefaults(),
                                               categories: CategoryConfig.contractCategories)
        #expect(sexagesimal.issues.map(\.description)
                == ["rows.tsv:2: source 's0': 'fetch_interval_hours' must be between 1 and 168 (got 180)"])
    }

    /// Tags and merge keys are not interpreted: `<<` is an unknown key, a tagged value is read by
    /// its text and style as any other.
    @Test func mergeKeysAndTagsAreNotInterpreted() {
        let merge = issues("version: 1\nsources: []\nfetch:\n  <<: {max_per_host: 1}\n")
        expectIssue(merge, containing: "unknown key '<<' in 'fetch'", line: 4, source: nil)
        let tagged = issues("version: 1\nsources: []\nfetch:\n  max_per_host: !!str 1x\n")
        expectIssue(tagged, containing: "'max_per_host' must be a whole number (got '1x')", line: 4, source: nil)
    }

    @Test(arguments: ["", "\n\n", "# a comment\n", "   "])
    func noDocumentIsAnEmptyFile(text: String) {
        #expect(issues(text).map(\.message) == ["configuration file is empty (expected 'version' and 'sources')"])
    }

    /// The worst shape near the 4 MB cap reads in one pass: a mapping of 200,000 distinct keys
    /// (under an unknown key, so the walk stops there).
    @Test func largeMappingsAreRead() {
        let keys = (0..<200_000).map { "  k\($0): v" }.joined(separator: "\n")
        #expect(issues("version: 1\nsources: []\nx:\n" + keys + "\n").map(\.description)
                == ["bad.yaml:3: unknown key 'x' in 'top level'"])
    }
}
