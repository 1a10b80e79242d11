import Testing

@testable import PulseConfig

/// Duplicate slugs, feeds, category slugs and names are found in a table of positions; the answers
/// and the order of the reports are those of the dictionaries they replaced.
@Suite struct DuplicateValueTests {
    /// Against a dictionary of first positions, on random lists with absent values and texts
    /// that are equal only canonically ("é" written precomposed and decomposed).
    @Test func earlierDuplicatesMatchADictionary() {
        let alphabet: [String?] = [nil, "a", "b", "é", "e\u{301}", "A", "", "a ", "ab", "日本"]
        var random = SplitMix(seed: 0xD0_0B1E)
        var duplicatesSeen = 0
        for _ in 0..<2_000 {
            let texts = (0..<random.next(40)).map { _ in alphabet[random.next(alphabet.count)] }
            var firstPositions: [String: Int] = [:]
            let expected = texts.indices.map { index -> Int? in
                guard let text = texts[index] else { return nil }
                if let first = firstPositions[text] { return first }
                firstPositions[text] = index
                return nil
            }
            let found = earlierDuplicates(texts)
            #expect(found == expected, "\(texts)")
            duplicatesSeen += found.compactMap { $0 }.count
        }
        #expect(duplicatesSeen > 10_000)
    }

    /// Entries the walk refuses (anchored, not a mapping) are neither first occurrences nor
    /// duplicates; a flow entry on one line repeats both values of the first source; an invalid
    /// entry's raw values still count. (The same reports, byte for byte, as the dictionary-based
    /// code gave: checked through the binary on this file and 300 generated ones.)
    @Test func sourceDuplicatesAreReportedWhereTheWalkReachesThem() {
        let yaml = """
            version: 1
            sources:
              - slug: alpha
                name: Alpha
                feed_url: https://example.com/a.xml
                category: world
                language: en
              - &anchored {slug: alpha, name: A, feed_url: https://example.com/a.xml, category: world, language: en}
              - slug: [alpha]
                name: Listed
                feed_url: https://example.com/b.xml
                category: world
                language: en
              - {slug: alpha, name: Again, feed_url: https://example.com/a.xml, category: world, language: xx}
              - slug: beta
                name: Beta
                feed_url: https://example.com/b.xml
                category: world
                language: en

            """
        let found = issues(yaml)
        #expect(found.map(\.description) == [
            "bad.yaml:8: source 'alpha': YAML anchors and aliases (&name / *name) are not supported",
            "bad.yaml:9: source '#3': 'slug' must be a single value, not a list or mapping",
            "bad.yaml:14: source 'alpha': duplicate source slug 'alpha' (first on line 3, again on line 14)",
            "bad.yaml:14: source 'alpha': feed_url is already used by source 'alpha' (line 5); each feed must be listed once",
            "bad.yaml:17: source 'beta': feed_url is already used by source '#3' (line 11); each feed must be listed once",
        ], "\(found.map(\.description).joined(separator: "\n"))")
    }

    /// One feed with its host in capitals, its default port or a fragment is one feed (the
    /// project's URL canonicalisation, less the default port); another port or scheme is another.
    @Test func spellingsOfOneFeedAreDuplicates() {
        let feeds = ["https://example.com/rss", "https://EXAMPLE.com/rss", "https://example.com:443/rss",
                     "https://example.com/rss#frag", "https://example.com:8443/rss", "http://example.com/rss"]
        let yaml = "version: 1\nsources:\n" + feeds.enumerated().map { index, feed in
            "  - {slug: s\(index), name: S, feed_url: '\(feed)', category: world, language: en}\n"
        }.joined()
        #expect(issues(yaml).map(\.description) == (1...3).map { index in
            "bad.yaml:\(index + 3): source 's\(index)': feed_url is already used by source 's0' (line 3, "
                + "as 'https://example.com/rss'); each feed must be listed once"
        })
    }

    @Test func categoryDuplicatesNameBothLines() {
        let yaml = """
            version: 1
            categories:
              - {slug: world, name: World}
              - {slug: world, name: Again}
              - {slug: tech, name: World}
              - {slug: [tech], name: Listed}
            sources: []

            """
        let found = issues(yaml)
        #expect(found.map(\.description) == [
            "bad.yaml:4: duplicate category slug 'world' (lines 3 and 4)",
            "bad.yaml:5: duplicate category name 'World' (lines 3 and 5)",
            "bad.yaml:6: 'slug' must be a single value, not a list or mapping",
        ], "\(found.map(\.description).joined(separator: "\n"))")
    }
}
