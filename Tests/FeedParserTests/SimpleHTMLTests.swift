import Testing
@testable import FeedParser

/// SimpleHTML must give exactly what libxml2's HTML parser gives (text and first image) for every
/// fragment it accepts, and decline the rest. Fragments are generated from its vocabulary and
/// beyond it, well-nested and not, with references, attributes and line breaks of every kind.
@Suite struct SimpleHTMLTests {
    /// What SimpleHTML alone makes of `html`, or nil when it declines.
    static func simple(_ html: String) -> HTMLText.Extract? {
        var html = html
        return html.withUTF8 { bytes in
            let collector = HTMLText.Collector()
            guard SimpleHTML.read(bytes, into: collector) else { return nil }
            let text = collector.out.withUnsafeBufferPointer { TextSanitizer.cleanString($0, multiline: true, html: true) }
            return HTMLText.Extract(text: text, firstImageSource: collector.firstImage)
        }
    }

    static func parser(_ html: String) -> HTMLText.Extract {
        var html = html
        return html.withUTF8 { HTMLText.extractWithParser(bytes: $0) }
    }

    /// Asserts agreement when accepted; returns whether it was accepted.
    @discardableResult
    static func agree(_ html: String, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        guard let fast = simple(html) else { return false }
        let reference = parser(html)
        #expect(fast == reference, "\(html.debugDescription)", sourceLocation: sourceLocation)
        return true
    }

    @Test func publisherShapesAreReadWithoutTheParserAndAgree() {
        let accepted = [
            "<p>Hello &amp; <b>world</b></p>",
            "<p>The council met on Thursday.</p>\n<p>Members asked about costs &#8212; and timing.</p>",
            #"<figure><img src="https://img.example/a.jpg?w=800&amp;h=450" alt="x" width="800" height="450"/><figcaption>Photo: &copy; Agency</figcaption></figure><p>Text</p>"#,
            "<div><h2>Heading</h2><ul><li>one</li><li>two <a href=\"/x\">link</a></li></ul><blockquote><p>quoted</p></blockquote></div>",
            "Plain text with <em>emphasis</em>, a line<br>break and a rule<hr/>after.",
            "<p>AT&T, Q&A, 5 &lt; 6 &gt; 4, caf&eacute;, &unknown; &#x1F600; &#39;quoted&#39;</p>",
            "<img src=/bare/path.png width=1 height=1><p>tracker first</p><img src='/real.png'>",
            "<p>line one\r\nline two\tand\u{A0}more</p>",
        ]
        for html in accepted {
            #expect(Self.agree(html), "declined: \(html.debugDescription)")
        }
    }

    @Test func shapesWhereLibxml2RecoversAreDeclined() {
        let declined = [
            "<p>a<div>b</div>c</p>d",          // libxml2 closes the p at the div
            "<b><p>x</p></b>",                   // and a b at a p
            "<p>unclosed",                       // open at the end
            "a</p>b",                            // stray end tag
            "<li>outside a list</li>",
            "<ul><li>a<li>b</ul>",
            "<a href=x><a href=y>nested</a></a>",
            "<!-- comment --><p>x</p>",
            "<table><tr><td>cell</td></tr></table>",
            "<pre>keep\n  lines</pre>",
            "<script>var x = 1 < 2;</script>",
            "<o:p>word</o:p>",
            "5 < 6",
            "&#0; &#xD800;",
            "&#39 missing semicolon",
            "<p title=\"a\nb\">line break in a value</p>",
            "<p class=>empty bare value</p>",
            "<img src=\"unterminated>",
            "<blockquotes>a name that shares blockquote's first eight bytes</blockquotes>",
        ]
        for html in declined {
            #expect(Self.simple(html) == nil, "accepted: \(html.debugDescription)")
        }
    }

    /// Fragments in the vocabulary, closed as written: most are accepted, so the nesting rules
    /// are what is being tested (any block may be generated inside any element).
    @Test func generatedTidyFragmentsAgreeWithLibxml2() {
        Self.compareGenerated(wild: false, minimumShare: 4)
    }

    /// Anything goes: tags outside the vocabulary, wrong and missing end tags, odd references.
    @Test func generatedWildFragmentsAgreeWithLibxml2() {
        Self.compareGenerated(wild: true, minimumShare: 10)
    }

    /// The comparison only means something if at least 1/minimumShare is taken by the fast reader.
    static func compareGenerated(wild: Bool, minimumShare: Int, total: Int = 8_000,
                                 sourceLocation: SourceLocation = #_sourceLocation) {
        var generator = SystemRandomNumberGenerator()
        var accepted = 0
        for _ in 0..<total where Self.agree(Self.fragment(wild: wild, using: &generator), sourceLocation: sourceLocation) {
            accepted += 1
        }
        #expect(accepted > total / minimumShare, "accepted \(accepted) of \(total)", sourceLocation: sourceLocation)
    }

    /// Names past eight bytes are compared in full, in both readers' tables.
    @Test func longNamesAreMatchedExactly() {
        var long = "blockquote"
        var near = "blockquota"
        #expect(long.withUTF8 { HTMLText.exactKey($0.baseAddress!, $0.count) } != nil)
        #expect(near.withUTF8 { HTMLText.exactKey($0.baseAddress!, $0.count) } == nil)
        #expect(HTMLText.extract("<p>a</p><figcaptions>b</figcaptions>c").text == "a\n\nbc")
        #expect(HTMLText.extract("<p>a</p><FIGCAPTION>b</FIGCAPTION>c").text == "a\n\nb\n\nc")
    }

    /// Floods an attacker can put in a feed field: the answer is libxml2's, whichever reader gives it.
    @Test func floodsGiveTheParsersAnswer() {
        let floods = [
            String(repeating: "&zz; ", count: 20_000),                       // past the lookup allowance
            String(repeating: "&amp;", count: 20_000),
            String(repeating: "<div>", count: 100) + "deep" + String(repeating: "</div>", count: 100),  // past the depth cap
            String(repeating: "<span>", count: 50) + "x" + String(repeating: "</span>", count: 50),
            String(repeating: "<b a=1 b=2 c=3>x</b>", count: 5_000),
            String(repeating: "&", count: 50_000) + String(repeating: "<", count: 1_000),
            String(repeating: "&#", count: 20_000),
        ]
        for html in floods {
            var bytes = html
            let fast = bytes.withUTF8 { HTMLText.extract(bytes: $0) }
            #expect(fast == Self.parser(html), "\(html.prefix(40))…")
        }
        #expect(Self.simple(String(repeating: "&zz; ", count: 20_000)) == nil)
        #expect(Self.simple(String(repeating: "<div>", count: 100) + String(repeating: "</div>", count: 100)) == nil)
        #expect(Self.simple(String(repeating: "<div>", count: 60) + String(repeating: "</div>", count: 60)) != nil)
    }

    /// The worst a field costs: SimpleHTML reads a fragment to its last bytes, declines it there
    /// (an unclosed table), and libxml2 reads it all again. libxml2's part is bounded by its own
    /// budget, which starts when libxml2 starts: spent, it stops the parse within 256 callbacks.
    @Test func libxml2sRereadIsBoundedByItsOwnBudget() {
        let html = String(repeating: "<p>word <b>bold</b> word</p>", count: 20_000) + "<table>"
        #expect(Self.simple(html) == nil, "SimpleHTML declines at the end")
        let whole = html.utf8.withContiguousStorageIfAvailable { HTMLText.extract(bytes: $0) }!
        #expect(whole.text.utf8.count > 20_000 * 10, "a fresh budget for libxml2: the whole fragment is read")
        let spent = html.utf8.withContiguousStorageIfAvailable { HTMLText.extractWithParser(bytes: $0, budgetSeconds: 0) }!
        #expect(spent.text.utf8.count < 256 * 10, "a spent budget stops libxml2 within 256 callbacks")
    }

    // MARK: Generator

    static let vocabulary = ["a", "abbr", "b", "big", "cite", "code", "del", "em", "font", "i", "ins", "kbd", "mark", "q",
                             "s", "small", "span", "strike", "strong", "sub", "sup", "time", "tt", "u", "var",
                             "p", "h1", "h2", "h3", "div", "blockquote", "figure", "figcaption", "section", "article",
                             "header", "footer", "aside", "nav", "main", "ul", "ol", "li"]
    static let outsiders = ["table", "td", "tr", "pre", "dl", "dd", "form", "center", "o:p", "x-custom", "script", "title"]
    static let voids = ["br", "img", "hr"]
    static let tidyWords = ["news", "council", "café", "東京", "“quoted”", "a—b", "AT&T", "&amp;", "&nbsp;", "&eacute;",
                            "&#8217;", "&#x2014;", "&lt;", "5 > 4", "Q&A"]
    static let words = ["news", "council", "café", "東京", "Ελλάδα", "“quoted”", "a—b", "x", "AT&T", "Q&A", "&amp;", "&nbsp;",
                        "&eacute;", "&#8217;", "&#x2014;", "&#X41;", "&unknown;", "&amp", "&", "&#0;", "&#65", "&copy;",
                        "&AMP;", "&lt;", "&gt;", "&quot;", "&apos;", "&hellip;", "&#xFFFE;", "\u{FEFF}", "5 > 4", "<",
                        "\u{1}", "\u{7F}", "\u{2028}"]
    static let spaces = [" ", "  ", "\n", "\r\n", "\t", "", "", ""]

    static func pick<T>(_ items: [T], using g: inout SystemRandomNumberGenerator) -> T { items.randomElement(using: &g)! }

    static func attributes(for name: String, using g: inout SystemRandomNumberGenerator) -> String {
        var out = ""
        let names = name == "img" ? ["src", "SRC", "width", "height", "alt", "src"] : ["href", "class", "title", "data-x", "id"]
        for _ in 0..<Int.random(in: 0...3, using: &g) {
            let attribute = pick(names, using: &g)
            let value = pick(["/a.png", "https://img.example/b.jpg?w=1&amp;h=2", "1", "0", "600", "x&y", "a>b",
                              "/pixel.gif", "&#47;c.png", "", "q\"q", "it's"], using: &g)
            switch Int.random(in: 0...5, using: &g) {
            case 0: out += " \(attribute)"
            case 1: out += " \(attribute)=\(value)"
            case 2: out += " \(attribute)='\(value.replacingOccurrences(of: "'", with: ""))'"
            case 3: out += " \(attribute) = \"\(value.replacingOccurrences(of: "\"", with: ""))\""
            default: out += " \(attribute)=\"\(value.replacingOccurrences(of: "\"", with: ""))\""
            }
        }
        return out
    }

    static func fragment(wild: Bool, using g: inout SystemRandomNumberGenerator) -> String {
        var out = ""
        var open: [String] = []
        for _ in 0..<Int.random(in: 1...24, using: &g) {
            switch Int.random(in: 0...(wild ? 11 : 8), using: &g) {
            case 0...3:
                out += pick(wild ? words : tidyWords, using: &g) + pick(spaces, using: &g)
            case 4...5 where !wild, 4...6 where wild:
                let name = wild && Int.random(in: 0...14, using: &g) == 0 ? pick(outsiders, using: &g) : pick(vocabulary, using: &g)
                let written = Bool.random(using: &g) ? name : name.uppercased()
                let selfClosing = Int.random(in: 0...15, using: &g) == 0
                out += "<\(written)\(attributes(for: name, using: &g))\(selfClosing ? "/>" : ">")"
                if !selfClosing { open.append(name) }
            case 6 where !wild, 7:
                let name = pick(voids, using: &g)
                out += "<\(name)\(attributes(for: name, using: &g))\(Bool.random(using: &g) ? "/>" : ">")"
            case 6...8 where !wild, 8...10 where wild:
                guard let last = open.popLast() else { continue }
                // Mostly the right end tag; sometimes a wrong one, or none at all.
                switch wild ? Int.random(in: 0...19, using: &g) : 19 {
                case 0: out += "</\(pick(vocabulary, using: &g))>"
                case 1: break
                case 2: out += "</\(last) >"
                default: out += "</\(last)>"
                }
            default:
                out += pick(["<!-- c -->", "</p>", "</br>", " ", "\n\n", "&#10;"], using: &g)
            }
        }
        // Usually closed at the end, as publishing systems do.
        if !wild || Int.random(in: 0...4, using: &g) > 0 { while let last = open.popLast() { out += "</\(last)>" } }
        return out
    }
}
