import Testing
import HTMLDocument
@testable import Readability

/// Client-rendered pages whose markup is a shell: the article is the JSON-LD `articleBody`, and
/// the footer's legal notice, which Readability kept before, must not be stored as the article.
/// Pages whose markup shows the article (all of it, part of it, or more than `articleBody`) keep
/// what the markup shows.
struct StructuredBodyTests {
    static let url = "https://www.coastcourier.example/news/ferries"
    static let legal = "The Coast Courier is published by Coast Media Limited, registered in Scotland. All content is copyright and may not be reproduced without permission."

    /// Eight paragraphs of a made-up report, about 190 words.
    static let paragraphs = (0..<8).map { index in
        "Paragraph \(index) of the report explains how the harbour trust plans to repair quay number \(index) before the summer sailings begin, and what the island councils said about the cost."
    }

    static func jsonString(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "<": out += "\\u003c"   // as JSON encoders for HTML do: "</script>" would end the script
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    static func page(articleBody: String, markup: String = "") -> String {
        let jsonLD = "{\"@context\":\"https://schema.org\",\"@type\":\"NewsArticle\",\"headline\":\"Quays to be repaired\",\"articleBody\":\"\(jsonString(articleBody))\"}"
        return """
            <html><head><title>Quays to be repaired</title><script type="application/ld+json">\(jsonLD)</script></head>
            <body><nav><a href="/">Home</a> <a href="/news">News</a></nav><div id="app">\(markup)</div>
            <footer><p>\(legal)</p></footer></body></html>
            """
    }

    static func text(_ html: String) throws -> String {
        try #require(try extract(html, url: url)).text
    }

    @Test func aShellPageGetsThePublishersText() throws {
        let text = try Self.text(Self.page(articleBody: Self.paragraphs.joined(separator: "\n\n")))
        #expect(!text.contains("Coast Media Limited"))
        for index in 0..<8 { #expect(text.contains("repair quay number \(index)"), "paragraph \(index)") }
        #expect(text.components(separatedBy: "\n\n").count == 8, "one block per paragraph")
    }

    @Test func markupInTheBodyIsSanitised() throws {
        let body = Self.paragraphs.map { "<p>\($0)</p>" }.joined()
            + "<script>steal()</script><p><img src=x onerror=\"steal()\"><a href=\"javascript:steal()\">link</a> end\u{202E}.</p>"
        let article = try #require(try extract(Self.page(articleBody: body), url: Self.url))
        #expect(article.text.contains("repair quay number 7") && !article.text.contains("Coast Media"))
        #expect(!article.text.contains("steal") && !article.html.contains("steal") && !article.html.contains("onerror"))
        #expect(!article.text.unicodeScalars.contains("\u{202E}"), "bidi controls are stripped")
    }

    /// WordPress writes entities into its JSON-LD strings.
    @Test func entitiesInPlainTextAreDecoded() throws {
        let body = Self.paragraphs.joined(separator: "\n") + "\nThe trust&#8217;s chair said: &quot;Quays &amp; slipways first.&quot; 3 < 4."
        let text = try Self.text(Self.page(articleBody: body))
        #expect(text.contains("The trust’s chair said: \"Quays & slipways first.\" 3 < 4."))
    }

    /// A paywalled page shows its first paragraphs; the full text in JSON-LD is not shown instead.
    @Test func aPageShowingPartOfTheTextKeepsIt() throws {
        let shown = "<article>" + Self.paragraphs.prefix(3).map { "<p>\($0)</p>" }.joined() + "</article>"
        let text = try Self.text(Self.page(articleBody: Self.paragraphs.joined(separator: "\n"), markup: shown))
        #expect(text.contains("repair quay number 2") && !text.contains("repair quay number 5"))
    }

    /// A live page whose `articleBody` is only its introduction keeps the whole page.
    @Test func aPageShowingMoreThanTheBodyKeepsIt() throws {
        let updates = (0..<10).map { "<p>Update \($0): \(filler[$0 % 4])</p>" }.joined()
        let shown = "<article>" + Self.paragraphs.prefix(6).map { "<p>\($0)</p>" }.joined() + updates + "</article>"
        let introduction = Self.paragraphs.prefix(6).joined(separator: "\n")
        #expect(Extractor.wordCounts(introduction).values.reduce(0, +) >= Extractor.structuredBodyMinimumWords)
        let text = try Self.text(Self.page(articleBody: introduction, markup: shown))
        #expect(text.contains("Update 0") && text.contains("Update 9"))
    }

    /// Fewer than 80 words is a summary, not the article.
    @Test func aShortBodyIsNotUsed() throws {
        let article = try extract(Self.page(articleBody: Self.paragraphs[0]), url: Self.url)
        #expect(article?.text.contains("repair quay number 0") != true)
    }

    @Test func theFaithfulPortIgnoresIt() throws {
        let article = try extract(Self.page(articleBody: Self.paragraphs.joined(separator: "\n")), url: Self.url,
                                  options: .init(enhancedCleaning: false))
        #expect(article?.text.contains("repair quay number") != true)
    }

    @Test func differentArticleNeedsLittleSharedEitherWay() {
        let words = Extractor.wordCounts(Self.paragraphs.joined(separator: " "))
        #expect(Extractor.isDifferentArticle(words, from: nil))
        #expect(Extractor.isDifferentArticle(words, from: Self.legal))
        #expect(!Extractor.isDifferentArticle(words, from: Self.paragraphs[1] + " " + Self.paragraphs[2]))
        #expect(!Extractor.isDifferentArticle(words, from: Self.paragraphs.joined(separator: " ") + String(repeating: " " + filler[0], count: 20)))
        #expect(!Extractor.isDifferentArticle(Extractor.wordCounts(Self.paragraphs[0]), from: nil), "too short to be an article")
    }
}

extension StructuredBodyTests {
    /// Over 1 MB is no article's text: it is not compared, not parsed, not used.
    @Test func anOversizedBodyIsIgnored() throws {
        let huge = String(repeating: Self.paragraphs[0] + "\n", count: 6_000)
        #expect(huge.utf8.count > Extractor.structuredBodyMaximumBytes)
        let article = try extract(Self.page(articleBody: huge), url: Self.url)
        #expect(article?.text.contains("repair quay number") != true)
    }
}

extension StructuredBodyTests {
    /// Markup is `<p>`, `<p `, `<br`, `</p>` or `<div` in any case, in the first 4 KB.
    @Test(arguments: [
        ("First line.<br>Second line.", true), ("<P>One.</P>", true), ("<p class=\"x\">One.", true),
        ("One.</p>", true), ("<DIV>One.</DIV>", true), ("<<p>One.", true), ("Ends with <BR/>", true),
        ("Plain text, no tags at all.", false), ("If a < b and p> c then d.", false), ("<section>One.</section>", false),
        ("<pre>code</pre>", false), ("<b>bold</b> and <i>italic</i>", false), ("Trailing <", false),
        ("Ends in <b", false), (String(repeating: "x", count: 4_096) + "<p>late", false),
    ])
    func markupIsRecognisedByItsTags(text: String, isMarkup: Bool) {
        #expect(Extractor.looksLikeMarkup(text) == isMarkup)
    }
}

extension StructuredBodyTests {
    /// The byte-level `paragraphMarkup` against the Character-based splitting it replaced, on
    /// every line break `Character.isNewline` knows, CR LF, empty lines, `<`, and non-ASCII text.
    @Test(arguments: [
        "", "One line", "One\nTwo", "One\r\nTwo\r\n", "\n\nLead\n\n\nGap\n", "A\u{0B}B\u{0C}C\rD",
        "NEL\u{85}LS\u{2028}PS\u{2029}end", "a < b and <script>x</script>", "Café ☕ über\n日本語のテキスト\n",
        "e\u{301}\nzwj 👩‍👩‍👧 family", "\r\n", "<",
    ])
    func paragraphMarkupSplitsAsCharactersDid(text: String) {
        let byCharacter = text.split(whereSeparator: \.isNewline).map { line in
            "<p>" + line.replacing("<", with: "&lt;") + "</p>"
        }.joined()
        #expect(Extractor.paragraphMarkup(plainText: text) == byCharacter)
    }
}

extension StructuredBodyTests {
    /// A short news item (three paragraphs, about 55 counted words) is used over markup that shows
    /// only the footer, which it outweighs three times; over an article it outweighs not, it is not.
    @Test func aShortBodyReplacesOnlyAFarShorterExtraction() throws {
        let short = Self.paragraphs[0..<3].joined(separator: "\n\n")
        let shell = try Self.text(Self.page(articleBody: short))
        #expect(shell.contains("repair quay number 2") && !shell.contains("Coast Media Limited"))
        let shown = try Self.text(Self.page(articleBody: short, markup: fillerParagraphs(4)))
        #expect(shown.contains(filler[3]) && !shown.contains("repair quay number"))
    }
}
