import Foundation
import Testing
import HTMLDocument
@testable import Readability

struct OutputSafetyTests {
    @Test func linksAreAbsoluteAndSchemeChecked() throws {
        let links = "<p>See <a href='/about'>about</a>, <a href='javascript:alert(1)'>js</a>, <a href='mailto:desk@example.com'>mail</a> and <a href='#top'>top</a> here.</p>"
        let html = page(body: "<div class='story'>\(links)\(fillerParagraphs())</div>")
        let article = try #require(try extract(html, url: "https://news.example.com/a/b.html"))
        #expect(article.html.contains("<a href=\"https://news.example.com/about\">about</a>"))
        #expect(article.html.contains("<a href=\"mailto:desk@example.com\">mail</a>"))
        #expect(!article.html.contains("javascript"))
        #expect(!article.html.contains("#top"))
        #expect(article.text.contains("See about, js, mail and top here."))
    }

    @Test func onlyAllowListedTagsAndAttributes() throws {
        let rich = "<section><h3 class='x' style='color:red'>Sub</h3><p>A <b>bold</b> and <i>italic</i> <font color=red>font</font> <u>u</u>.</p><ul><li>one</li></ul><pre><code>let x = 1\nlet y = 2</code></pre><blockquote>Quote</blockquote></section>"
        let article = try #require(try extract(page(body: "<div class='story'>\(rich)\(fillerParagraphs())</div>"), options: .init(enhancedCleaning: false)))
        let allowed: Set<String> = ["p", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "blockquote", "pre", "code", "figure", "img", "a", "em", "strong"]
        let tags = article.html.split(separator: "<").dropFirst().map { piece in
            String(piece.prefix { $0 != ">" && $0 != " " }).trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        }
        #expect(tags.allSatisfy { allowed.contains($0) }, "\(Set(tags))")
        #expect(article.html.contains("<h3>Sub</h3>"))
        #expect(article.html.contains("<strong>bold</strong>"))
        #expect(article.html.contains("<pre><code>let x = 1\nlet y = 2</code></pre>"))
        #expect(article.text.contains("let x = 1\nlet y = 2"))
    }

    /// A recipe roundup's "<span>Name</span><img><text>": the image keeps the words apart.
    @Test func anImageBetweenTwoWordsSeparatesThem() throws {
        let item = "<p><span>Baked Squash</span><img src='/squash.jpg' width='500'>Roast the squash until soft, then fill it with the spiced turkey.</p>"
        let article = try #require(try extract(page(body: "<div class='story'>\(item)\(fillerParagraphs())</div>")))
        #expect(article.text.contains("Baked Squash Roast the squash"))
    }

    @Test func controlAndBidiCharactersAreRemovedFromText() throws {
        let html = page(body: "<div class='story'><p>Safe\u{202E}txt\u{200F} and\u{0007}bell &#x2066;iso.</p>\(fillerParagraphs())</div>")
        let article = try #require(try extract(html))
        // Gumbo itself turns C0 controls into U+FFFD; bidi controls are ours to strip.
        #expect(article.text.contains("Safetxt and") && article.text.contains("bell iso."))
        #expect(!article.text.unicodeScalars.contains { [0x202E, 0x200F, 0x07, 0x2066].contains($0.value) })
        #expect(!article.html.unicodeScalars.contains { [0x202E, 0x200F, 0x07, 0x2066].contains($0.value) })
    }

    @Test func textEscapedInHTML() throws {
        let html = page(body: "<div class='story'><p>1 &lt; 2 &amp;&amp; \"x\" &gt; y &lt;script&gt;</p>\(fillerParagraphs())</div>")
        let article = try #require(try extract(html))
        #expect(article.html.contains("1 &lt; 2 &amp;&amp; \"x\" &gt; y &lt;script&gt;"))
        #expect(article.text.contains("1 < 2 && \"x\" > y <script>"))
    }

    @Test func paragraphsSeparatedByBlankLines() throws {
        let article = try #require(try extract(page(body: "<div>\(fillerParagraphs())</div>")))
        #expect(article.text == filler.joined(separator: "\n\n"))
        #expect(article.length == article.text.count)
    }

    @Test func textLengthIsCapped() throws {
        let article = try #require(try extract(page(body: "<div>\(fillerParagraphs(40))</div>"), options: .init(maxTextLength: 1_000)))
        #expect(article.text.count <= 1_000)
    }

    /// The cap counts Characters: paragraphs are kept while fewer than `maxTextLength` have been
    /// kept, then the text is cut to it. Text where bytes, scalars and Characters all differ
    /// (accents, CJK, emoji, combining marks) keeps exactly what that rule keeps, for limits on
    /// both sides of where the byte count and the Character count cross.
    @Test func theCapCountsCharactersNotBytes() throws {
        let pieces = ["caf\u{E9} ", "\u{4E2D}\u{6587} ", "\u{1F600} ", "e\u{301}t\u{E9} ", "plain words, ", "na\u{EF}ve "]
        let paragraphs = (0..<30).map { index in
            (0..<(12 + index % 7)).map { pieces[($0 + index) % pieces.count] }.joined() + "end of paragraph \(index)."
        }
        let body = "<div>" + paragraphs.map { "<p>\($0)</p>" }.joined() + "</div>"
        for limit in [300, 700, 1_000, 1_200, 1_500, 2_000, 2_600, 5_000] {
            var kept: [String] = []
            var length = 0
            for paragraph in paragraphs where length < limit {
                kept.append(paragraph)
                length += paragraph.count + 2
            }
            let expected = String(kept.joined(separator: "\n\n").prefix(limit))
            let article = try #require(try extract(page(body: body), options: .init(maxTextLength: limit)))
            let same = zip(article.text, expected).prefix { $0 == $1 }.count
            #expect(article.text == expected,
                    "limit \(limit): \(article.text.count) vs \(expected.count) characters, first difference at \(same): \(article.text.dropFirst(same).prefix(40).debugDescription) vs \(expected.dropFirst(same).prefix(40).debugDescription)")
        }
    }
}

struct PathologicalTests {
    @Test func deepButAllowedNestingCompletes() throws {
        let html = "<html><body>" + String(repeating: "<div>", count: 1_000) + fillerParagraphs() + "</body></html>"
        let document = try HTMLDocument.parse(html: html)
        #expect(document.depthTruncated)
        _ = Readability.extract(from: document, url: "https://x.example/")
    }

    @Test func nestingJustUnderDepthLimitExtracts() throws {
        let html = "<html><body>" + String(repeating: "<div>", count: 400) + fillerParagraphs() + "</body></html>"
        let article = try #require(Readability.extract(from: try HTMLDocument.parse(html: html), url: "https://x.example/"))
        #expect(article.text.contains(filler[0]))
    }

    @Test func twoHundredThousandNestedDivsFailCleanly() {
        #expect(throws: HTMLDocumentError.self) {
            try HTMLDocument.parse(html: String(repeating: "<div>", count: 200_000))
        }
    }

    @Test func wideFlatPageCompletes() throws {
        let html = "<html><body><div>" + String(repeating: "<p>word, word, word and more words for the paragraph</p>", count: 20_000) + "</div></body></html>"
        let article = try #require(Readability.extract(from: try HTMLDocument.parse(html: html), url: "https://x.example/"))
        #expect(article.text.count <= ReadabilityOptions().maxTextLength)
    }

    /// The repeated-line rule (`removePageFurniture`) on its worst shape: 20,000 short lines
    /// inside the article, two captions alternating. Each line is keyed once (a fingerprint of
    /// at most `furnitureLineLimit` bytes), so the pass is linear in the lines; the walks that find
    /// them are counted by the visit meter, which stays far inside its budget, and each caption is
    /// kept once.
    @Test func twentyThousandRepeatedCaptionsAreKeptOnce() throws {
        let captions = ["Photo: the harbour at dawn, seen from the northern pier.",
                        "Photo: fishing boats tied up along the old eastern quay."]
        let lines = (0..<20_000).map { "<p>\(captions[$0 % 2])</p>" }.joined()
        let html = page(body: "<div class=story>" + fillerParagraphs() + lines + fillerParagraphs() + "</div>")
        let document = try HTMLDocument.parse(html: html)
        let extractor = Extractor(document: document, url: "https://x.example/", options: .init())
        let article = try #require(extractor.parse())
        #expect(article.text.contains(filler[0]))
        for caption in captions {
            #expect(article.text.components(separatedBy: caption).count - 1 <= 1, "\(caption) kept more than once")
        }
        #expect(extractor.arena.meter.visits < extractor.arena.meter.limit / 4, "visits \(extractor.arena.meter.visits)")
    }

    @Test func unclosedEverythingGivesBoundedResult() throws {
        let html = "<html><body><div class=story><p>" + filler.joined(separator: "<p>") + "<table><tr><td><ul><li>item<li>item<div><span><a href=/x>link"
        let article = try #require(try extract(html))
        #expect(article.text.contains(filler[3]))
    }

    @Test func hugeAttributeValueDoesNotLeak() throws {
        let big = String(repeating: "z", count: 3_000_000)
        let html = page(body: "<div class='story' data-blob='\(big)'>\(fillerParagraphs())</div>")
        let article = try #require(try extract(html))
        #expect(!article.html.contains("zzzz"))
    }
}

struct WorkBudgetTests {
    @Test func manyDeepSubtreesStayBounded() throws {
        // 120 towers of 480 nested divs: each level would re-measure the tower below it.
        let tower = String(repeating: "<div>", count: 480) + "<p>\(filler[0])</p>" + String(repeating: "</div>", count: 480)
        let html = "<html><body>" + String(repeating: tower, count: 120) + "</body></html>"
        let document = try HTMLDocument.parse(html: html)
        let extractor = Extractor(document: document, url: "https://x.example/", options: .init())
        _ = extractor.parse()
        #expect(extractor.arena.meter.visits <= extractor.arena.meter.limit + 2_000_000)
    }

    @Test func ordinaryPagesStayWellInsideTheBudget() throws {
        for name in Fixtures.pageNames {
            let document = try HTMLDocument.parse(html: try Fixtures.text("pages/\(name).html"))
            let extractor = Extractor(document: document, url: "https://x.example/", options: .init())
            #expect(extractor.parse() != nil)
            #expect(extractor.arena.meter.visits < extractor.arena.meter.limit / 20, "\(name): \(extractor.arena.meter.visits)")
        }
    }
}
