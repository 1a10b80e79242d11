import Testing
@testable import Readability

/// `Regexps.Keywords` answers "does any word occur in the text" in one pass; held here to the
/// plain definition (each word searched on its own) on random texts built from pieces of the
/// words, so near misses, overlaps, words at both ends and words longer than the text all occur.
@Suite struct KeywordsTests {
    static func occursNaively(_ words: [[UInt8]], in text: [UInt8]) -> Bool {
        guard !text.isEmpty else { return false }
        return words.contains { word in
            word.isEmpty || (word.count <= text.count && (0...(text.count - word.count)).contains { start in
                text[start..<(start + word.count)].elementsEqual(word)
            })
        }
    }

    @Test func randomTextsAgreeWithTheDefinition() {
        var generator = SystemRandomNumberGenerator()  // a failure prints its case
        let pieces = ["-ad-", "ad", "-", "com", "com-", "comment", "foot", "footer", "a", "", " ", "x", "é", "\u{0}",
                      "//you", "tube", "//youtube.com", "side", "bar", "sidebar", "s", "hare", "share"]
        for _ in 0..<5_000 {
            let words = (0..<Int.random(in: 1...6, using: &generator)).map { _ in
                (0..<Int.random(in: 1...3, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            }
            let text = (0..<Int.random(in: 0...8, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            let keywords = Regexps.Keywords(words)
            let expected = Self.occursNaively(words.map { Array($0.utf8) }, in: Array(text.utf8))
            #expect(keywords.matches(Array(text.utf8)) == expected, "\(words) in \(text.debugDescription)")
        }
    }

    @Test func theShippedListsAgreeWithTheDefinition() {
        var generator = SystemRandomNumberGenerator()
        let lists: [(Regexps.Keywords, [String])] = [
            (Regexps.unlikelyCandidates, ["-ad-", "banner", "comment", "sidebar", "yom-remote", "menu"]),
            (Regexps.positive, ["article", "body", "content", "story", "h-entry"]),
        ]
        let filler = ["post", "wrap", "main-", "x", " ", "-", "col", "ment", "side", "bar", "art", "icle", "menu"]
        for (keywords, sample) in lists {
            for _ in 0..<2_000 {
                let text = (0..<Int.random(in: 0...6, using: &generator)).map { _ in
                    (filler + sample).randomElement(using: &generator)!
                }.joined()
                let expected = sample.contains { text.contains($0) } || Self.anyOtherWord(keywords, text)
                #expect(keywords.matches(Array(text.utf8)) == expected, "\(text.debugDescription)")
            }
        }
    }

    /// The lists hold more words than the samples above; those are checked one by one.
    static func anyOtherWord(_ keywords: Regexps.Keywords, _ text: String) -> Bool {
        keywords.allWords.contains { text.contains($0) }
    }

    @Test func emptyTextsAndWords() {
        #expect(!Regexps.Keywords(["a"]).matches([UInt8]()))
        #expect(!Regexps.Keywords([""]).matches([UInt8]()))
        #expect(Regexps.Keywords(["", "zz"]).matches(Array("b".utf8)))
        #expect(!Regexps.Keywords(["abc"]).matches(Array("ab".utf8)))
        #expect(Regexps.Keywords(["abc"]).matches(Array("xxabc".utf8)))
    }

    /// Worst input: 256 KiB of near misses of the longest words, every position starting one.
    /// The work is bounded by the text's length times `comparisonsPerPosition`, at most 300 for every
    /// shipped list, and the answer is still right.
    @Test func nearMissesAtEveryPositionStayLinear() {
        let lists: [Regexps.Keywords] = [Regexps.unlikelyCandidates, Regexps.okMaybeItsACandidate, Regexps.positive,
                                         Regexps.byline, Regexps.videoHosts]
        for keywords in lists {
            #expect(keywords.comparisonsPerPosition <= 300, "\(keywords.allWords)")
            let longest = keywords.allWords.max { $0.utf8.count < $1.utf8.count }!
            let nearMiss = Array(longest.utf8.dropLast()) + [UInt8(ascii: "#")]
            let text = Array([[UInt8]](repeating: nearMiss, count: 262_144 / nearMiss.count).joined())
            #expect(keywords.matches(text) == Self.occursNaively(keywords.allWords.map { Array($0.utf8) }, in: Array(text.prefix(4_096))),
                    "\(longest)")
        }
    }
}

/// `LiteralPrefixes` compares bytes before Characters; it must answer as `hasPrefix` does,
/// including where a combining mark follows a prefix and for non-ASCII prefixes.
@Suite struct LiteralPrefixesTests {
    @Test func answersAsHasPrefixDoes() {
        let prefixes = Extractor.callToActionPrefixes + Extractor.furnitureLinePrefixes + Extractor.headLinePrefixes
        let set = LiteralPrefixes(prefixes)
        let starts = prefixes + ["", "rea", "©", "don’", "don\u{2019}t", "sign", "e\u{301}", "\u{37E}"]
        let tails = ["", " now", "\u{301}", "\u{301} more", "x", "’s", ":", "\u{200D}", " \u{301}"]
        for start in starts {
            for tail in tails {
                let text = start + tail
                #expect(set.matchStart(of: text) == prefixes.contains(where: text.hasPrefix), "\(Array(text.unicodeScalars))")
            }
        }
    }
}

/// `matchBytes` is built in one buffer; it must stay `(className + " " + id).lowercased()`.
@Suite struct MatchBytesTests {
    @Test(arguments: [
        [String](), ["class", "Article-Body"], ["id", "MAIN"], ["class", "a", "id", "B"], ["id", "B", "class", "a"],
        ["class", "first", "class", "second"], ["class", "ÜBER Größe"], ["data-x", "y"], ["class", ""], ["id", "İstanbul"],
    ])
    func isTheLowerCasedJoin(pairs: [String]) {
        let arena = DOMArena()
        let node = arena.element("div")
        for index in stride(from: 0, to: pairs.count, by: 2) {
            node.attributes.append(DNode.Attribute(name: pairs[index], value: pairs[index + 1]))
        }
        #expect(node.matchBytes == Array((node.className + " " + node.id).lowercased().utf8))
        // Made once and kept: an attribute change must still be seen.
        node.setAttribute("class", "Changed")
        #expect(node.matchBytes == Array(("changed " + node.id).lowercased().utf8))
        node.removeAttribute("class")
        #expect(node.matchBytes == Array((node.className + " " + node.id).lowercased().utf8))
    }
}

/// The byte reading of the `javascript:` scheme test against the lower-casing it replaced.
@Suite struct JavaScriptSchemeTests {
    @Test(arguments: ["javascript:void(0)", "JavaScript:x", "JAVASCRIPT:", "javascript", "javascript :x", "java script:",
                      "javascript:\u{301}x", "javascr\u{130}pt:", "jav\u{212A}ascript:", "", "/path", "https://x.test/",
                      "javascript:é", "jäväscript:", "javascript:"])
    func answersAsLowerCasingDoes(text: String) {
        #expect(Extractor.startsWithJavaScriptScheme(text) == text.lowercased().hasPrefix("javascript:"), "\(text)")
    }
}

/// The byte search for a data URI's "base64" marker against the lower-casing search it replaced.
@Suite struct Base64PayloadTests {
    @Test(arguments: ["data:image/png;base64,iVBORw0KGgo=", "data:image/gif;BASE64,R0lGODlhAQABAAAAACw=", "data:image/png,plain",
                      "", "base64", "xbase6", "data:image/svg+xml;Base64," + String(repeating: "A", count: 300),
                      "data:image/png;name=é;base64,AAAA", "İ;base64,AAAA"])
    func answersAsTheLowerCasingSearchDid(src: String) {
        let lowered = src.lowercased()
        let expected = lowered.firstRange(of: "base64").map {
            src.utf16.count - (lowered.utf16.distance(from: lowered.startIndex, to: $0.lowerBound) + 7)
        }
        #expect(Extractor.base64PayloadLength(src) == expected)
    }
}

/// A post's own class list names its categories and tags; those names are the writer's words.
struct TaxonomyClassTests {
    @Test func categoryAndTagNamesLeaveAPostsClassList() {
        #expect(DNode.withoutTaxonomy("post type-post category-social-media tag-comments hentry") == "post type-post hentry")
        #expect(DNode.withoutTaxonomy("entry-category-brand entry-author-kevin entry") == "entry")
        #expect(DNode.withoutTaxonomy("tag-list related") == "tag-list related", "no category name: a box of its own")
        #expect(DNode.withoutTaxonomy("share-bar") == "share-bar")
    }

    /// A short post filed under "Social media" (TypePad's "entry-category-social_media") beside a
    /// sidebar: the post went as a share bar ("social"), leaving the sidebar.
    @Test func aPostFiledUnderASocialCategoryIsKept() throws {
        let post = "<div class=\"entry-category-social_media entry-author-kd entry\"><h3>Brands are not people</h3>"
            + "<div class=\"entry-body\"><p>Like any professional industry, social media discussions can become confrontational, and this week was no exception.</p>"
            + "<p>It usually starts when someone makes a point and someone else splits hairs to make a counterpoint of their own.</p></div></div>"
        let sidebar = "<div id=\"beta\">" + (0..<6).map { "<p>Sidebar note \($0): the archive holds every post since 2005, sorted by month and by topic, with a search box.</p>" }.joined() + "</div>"
        let text = try #require(try extract(page(title: "Brands are not people", body: "<div id=\"alpha\">\(post)</div>\(sidebar)"))).text
        #expect(text.contains("social media discussions can become confrontational"))
        #expect(!text.contains("Sidebar note"))
    }
}
