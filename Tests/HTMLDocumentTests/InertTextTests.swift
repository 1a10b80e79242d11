import Foundation
import Testing
@testable import HTMLDocument

/// `leavesOutScriptAndStyleText` must change nothing in the tree but the text of script and style
/// elements: each input is parsed both ways and the trees compared node by node. The shapes where
/// the pre-scan and gumbo's tokenizer could disagree on where raw text ends are cases here, and a
/// seeded generator mixes them at random.
struct InertTextTests {
    static var leaving: HTMLParseLimits {
        var limits = HTMLParseLimits()
        limits.leavesOutScriptAndStyleText = true
        return limits
    }

    /// Every node as a line; the text under script and style elements is reported apart, with the
    /// line number of its element (so a text put back in the wrong script shows).
    static func shape(_ document: HTMLDocument) -> (nodes: [String], rawText: [String]) {
        var nodes: [String] = []
        var rawText: [String] = []
        var lineOf: [Int: Int] = [:]
        for (index, node) in document.nodes.enumerated() {
            let parentTag = node.parent.map { document[$0].tag } ?? ""
            let parentIsRaw = node.kind == .text && (parentTag == "script" || parentTag == "style")
            if parentIsRaw {
                rawText.append("\(node.parent.flatMap { lineOf[$0.index] } ?? -1): \(node.text)")
                continue
            }
            lineOf[index] = nodes.count
            let attributes = node.attributes.map { "\($0.name)=\($0.value)" }.joined(separator: " ")
            let children = document.children(of: HTMLDocument.NodeID(index: index)).filter { child in
                !(document[child].kind == .text && (node.tag == "script" || node.tag == "style"))
            }.count
            nodes.append("\(index > 0 ? "n" : "doc") \(node.kind) \(node.tag) [\(attributes)] \(children) \(node.text.debugDescription)")
        }
        return (nodes, rawText)
    }

    /// Parses both ways; the trees must match outside raw text. Returns the raw texts of both.
    @discardableResult
    static func compare(_ html: String, _ comment: Comment? = nil) throws -> (full: [String], leaving: [String]) {
        try compare(bytes: Array(html.utf8), comment ?? "\(html.prefix(200))")
    }

    @discardableResult
    static func compare(bytes: [UInt8], _ comment: Comment) throws -> (full: [String], leaving: [String]) {
        let full = shape(try HTMLDocument.parse(bytes))
        let left = shape(try HTMLDocument.parse(bytes, limits: leaving))
        #expect(full.nodes == left.nodes, comment)
        if full.nodes != left.nodes {
            let first = zip(full.nodes, left.nodes).first { $0 != $1 }
            Issue.record("first difference: \(String(describing: first))")
        }
        // What stays is what was there; what goes is only ever a whole text.
        #expect(left.rawText.allSatisfy { full.rawText.contains($0) }, comment)
        return (full.rawText, left.rawText)
    }

    @Test func scriptAndStyleTextGoesTheTreeStays() throws {
        let html = """
            <html><head><style>p { color: red }</style><script>var a = 1 < 2 && "</scr" + "ipt>";</script>
            <script type="application/ld+json">{"@type": "NewsArticle"}</script></head>
            <body><p>one</p><script>if (a<b) { x = "<p>not markup</p>" }</script><p>two</p>
            <script src="/a.js"></script><STYLE media=print>q{}</STYLE ><p>three</p></body></html>
            """
        let (full, left) = try Self.compare(html)
        #expect(full.count == 5)
        #expect(left.map { $0.drop { $0 != " " }.dropFirst() } == [#"{"@type": "NewsArticle"}"#], "only the JSON-LD text stays")
    }

    @Test(arguments: [
        #"<script type="application/ld+json">{}</script>"#,
        #"<script type="application/ld&#x2B;json">{}</script>"#,
        #"<script type="APPLICATION/JSON" id="__NEXT_DATA__">{}</script>"#,
    ])
    func jsonScriptsKeepTheirText(_ script: String) throws {
        let (_, left) = try Self.compare("<html><head>\(script)</head><body><p>x</p></body></html>")
        #expect(left.map { $0.hasSuffix(": {}") } == [true])
    }

    /// JSON text leaves gumbo's input and is put back as the script's text node, each in its own
    /// script; text gumbo's input stream would rewrite (CR, NUL, controls, noncharacters) and an
    /// unterminated script stay in gumbo's input. Either way the tree is the one gumbo makes alone.
    static func scalar(_ value: UInt32) -> String { String(Character(Unicode.Scalar(value)!)) }

    /// (JSON text, moved out of gumbo's input). Built from numbers: Swift refuses noncharacters in literals.
    static let jsonTexts: [(String, Bool)] = [
        ("{\"a\": \"caf\u{E9} \u{1F600} \\u00e9\"}\n\t{\u{0C}}", true),
        ("{\"a\": 1}\r\n{}", false),
        ("{\"a\": 1}\r{}", false),
        ("{\u{0}}", false),
        ("{\u{1}}", false),
        ("{\u{0B}}", false),
        ("{\u{1F}}", false),
        ("{\u{7F}}", false),
        ("{\u{85}}", false),
        ("{\u{9F}}", false),
        ("{\u{A0}}", true),
    ] + [(0xFDD0, false), (0xFDEF, false), (0xFDF0, true), (0xFFFE, false), (0xFFFF, false), (0x1FFFF, false),
         (0x10FFFE, false), (0x10FFFD, true)].map { ("{" + scalar($0.0) + "}", $0.1) }

    @Test(arguments: jsonTexts)
    func jsonTextIsPutBackAsGumboWouldRead(_ text: String, _ moved: Bool) throws {
        let html = "<html><head><script type=\"application/ld+json\">\(text)</script></head><body>"
            + "<table><script type=application/json>\(text)</script><tr><td>x</td></tr></table>"
            + "<template><script type=\"application/ld+json\">2\(text)</script></template>"
            + "<div><b><p>a<script type=\"application/ld+json\">3\(text)</script></b>b</p></div>"
            + "<select><script type=\"application/ld+json\">4\(text)</script></select></body></html>"
        let (full, left) = try Self.compare(html, "\(text.debugDescription)")
        #expect(left == full, "every script keeps its own text, in order")
        #expect(full.count == 5)
        var inert = InertText(enabled: true)
        _ = try MarkupEstimate.check(Array(html.utf8), limits: Self.leaving, inertText: &inert)
        // The four before <select> (which stops the collection) are moved, or none is.
        #expect(inert.restores == (moved ? [true, true, true, true] : []))
    }

    /// At the end of input a `</script` is text to gumbo: such a script stays in its input. An end
    /// tag cut short after its name is an end tag to both scans: that text moves, the tree is the same.
    @Test(arguments: [("{\"a\": 1}", false), ("{}</script", false), ("{}</scrip", false), ("{}</script ", true),
                      ("{}</script x", true)])
    func anUnterminatedJSONScriptStaysInGumbosInput(_ tail: String, _ moved: Bool) throws {
        let html = "<html><body><p>x</p><script type=\"application/ld+json\">\(tail)"
        let (full, left) = try Self.compare(html)
        #expect(left == full)
        var inert = InertText(enabled: true)
        _ = try MarkupEstimate.check(Array(html.utf8), limits: Self.leaving, inertText: &inert)
        #expect(inert.restores == (moved ? [true] : []))
    }

    /// Character data goes to gumbo as one placeholder a run and comes back in the same text
    /// nodes, wherever the insertion mode puts it: head, foster-parented out of a table, after
    /// `<pre>`, in a select, a template, after `</body>` and `</html>`.
    @Test func textRunsComeBackWhereGumboPutsThem() throws {
        let html = """
            <!DOCTYPE html>  Stray words before the html element
            <html><head>  Words in the head push the body open
            <title>The title stays RCDATA</title></head><body>
            <table>  Foster parented words go before the table<tr><td>In a cell, plainly</td>Words between cells</tr></table>
            <pre>
            First line of preformatted text</pre><p>A paragraph of ordinary text < with a lone angle.</p>
            <template>Words inside a template</template><p>Caf\u{E9} \u{1F600} and more text here</p>
            <svg><g>Words in svg are left to gumbo</g></svg><p>Words after the svg element</p>
            </body>  Words after the body end
            </html>  Words after the html end
            <select><option>An option with words</option>Loose words in select</select> and after the select
            """
        var inert = InertText(enabled: true)
        inert.substitutesText = true
        _ = try MarkupEstimate.check(Array(html.utf8), limits: Self.leaving, inertText: &inert)
        let runs = inert.textRuns.map { String(decoding: Array(html.utf8)[$0], as: UTF8.self) }
        #expect(runs.contains("Foster parented words go before the table"))
        #expect(runs.contains("Stray words before the html element\n"))
        #expect(runs.contains("Words after the html end\n"))
        // Not in svg, not in RCDATA, and nothing from `<select>` on (where a `<style>` is no raw text).
        #expect(!runs.contains { $0.contains("svg are left") || $0.contains("title stays") || $0.contains("select") })
        #expect(runs.count == 13, "\(runs)")
        try Self.compare(html)
    }

    /// A private-use character of the page's own, raw or as a numeric reference, would read as a
    /// placeholder: such a page keeps all its text in gumbo's input.
    @Test(arguments: ["\u{E000}", "\u{F8FF}", "\u{F0000}", "\u{10FFFD}", "&#xE000;", "&#XF8FF", "&#57344;", "&#x10fffd;",
                      "&#1114109"])
    func privateUseOnThePageKeepsTheText(_ character: String) throws {
        let html = "<html><body><p>Ordinary words of a paragraph.</p><p>Icon \(character) in text</p></body></html>"
        #expect(TextRuns.containsPrivateUse(Array(html.utf8)))
        try Self.compare(html)
        let plain = "<html><body><p>Ordinary words of a paragraph.</p><p>&#xE0; &#57343; &#xF900; \u{F900}</p></body></html>"
        #expect(!TextRuns.containsPrivateUse(Array(plain.utf8)))
    }

    /// More runs than the Basic Multilingual Plane's private-use area holds: the later ones get
    /// four-byte placeholders from planes 15 and 16.
    @Test func thousandsOfRunsUseEveryPlaceholderPlane() throws {
        let html = "<html><body>" + (0..<7_000).map { "<b>run number \($0)</b>" }.joined() + "</body></html>"
        var inert = InertText(enabled: true)
        inert.substitutesText = true
        _ = try MarkupEstimate.check(Array(html.utf8), limits: Self.leaving, inertText: &inert)
        #expect(inert.textRuns.count == 7_000)
        try Self.compare(html)
    }

    /// Each of these makes the rest of the page keep its raw text (and the tree is the same).
    @Test(arguments: [
        "<script><!-- document.write('<script>x</script>'); --></script><p>after</p>",
        "<svg><foreignObject><div></svg><script>x<p>y</p></script></div></foreignObject></svg>",
        "<svg><title><b>t</svg><script>x<p>y</p></script>",
        "<math><mi><script>x</script></mi></math>",
        "<svg><![CDATA[a</svg><script>x</script>]]></svg>",
        // Found by make fuzz: gumbo leaves <svg> open at an end tag with anything after its name.
        "<svg><path d='x'/></svg said on Sunday.</p><script>a</scr><script>b</script>",
        "<svg><g></g x></svg/><script>a</scr><script>b</script>",
        "<svg><g><![cdata[x]]></g></svg><script>x<p>y</p></script>",
        "<select><style>a<b>c</b></style></select>",
        "<frameset><style>a<frame></style></frameset>",
    ])
    func shapesWhereTheScansCouldDisagreeStopTheLeavingOut(_ opener: String) throws {
        let (full, left) = try Self.compare("<html><body>\(opener)<style>later</style><p>z</p></body></html>")
        #expect(full.contains { $0.hasSuffix(": later") } && left.contains { $0.hasSuffix(": later") })
    }

    @Test(arguments: [
        "<svg viewBox='0 0 8 8'><g><path d='M0 0'/><use href='#i'></use></g></svg>",
        "<svg/>",
        "<div =\"a>b\"><script>x</script>\">",
        "<script>a <\u{0F}script> b</script>",
        "<textarea><script>x</script></textarea>",
        "<title><style>x</style></title>",
        "<!-- <script> --><script>y</script>",
        "<!--><script>y</script>",
        "<xmp><script>x</script></xmp>",
        "<iframe><script>x</script></iframe>",
        "<noscript><style>x</style><p>n</p></noscript>",
        "<table><script>x</script><style>s</style><tr><td>y</td></tr></table>",
        "<script>a</script foo><style>b</style x=1><p>c</p>",
        "<script>unterminated",
        "<style>unterminated",
        "<script></SCRIPT ><p>a</p><script>b</script/><p>c</p>",
        "<scriptx>not a script</scriptx>",
        "<template><script>x</script></template>",
        "<p>a</p><plaintext><script>x</script>",
        // Found by make fuzz: in SVG the CDATA section runs to the end of input, so no later tag
        // is one to gumbo; the pre-scan saw a bogus comment, then a JSON script to move.
        "<svg><![CDATA[<p>path/></svg><script type=\"application/ld+json\">{}</script>",
    ])
    func edgeShapesGiveTheSameTree(_ shape: String) throws {
        try Self.compare("<!DOCTYPE html><html><head><style>h</style></head><body><p>before</p>\(shape)<p>after</p><style>s</style></body></html>")
    }

    /// The worst shapes for the collection: one 2 MB script of near misses of `<!--` with an
    /// attribute list of near misses of `json`, and 20,000 tiny scripts. Comparisons stay within
    /// 4 per byte of script text and attributes; each script is one range; the tree is the same.
    @Test func worstShapesStayLinear() throws {
        let nearMisses = String(repeating: "<!-<!<!-x", count: 2_000_000 / 9)
        let attributes = String(repeating: " jso=jsox", count: 50)
        let tiny = String(repeating: "<script>a</script>", count: 20_000)
        let html = "<html><head><script\(attributes)>\(nearMisses)</script></head><body>\(tiny)<p>x</p></body></html>"
        let bytes = Array(html.utf8)
        var inert = InertText(enabled: true)
        var limits = HTMLParseLimits()
        limits.leavesOutScriptAndStyleText = true
        _ = try MarkupEstimate.check(bytes, limits: limits, inertText: &inert)
        #expect(inert.ranges.count == 20_001)
        #expect(inert.comparisons <= 4 * (nearMisses.utf8.count + attributes.utf8.count + 20_000))
        #expect(inert.comparisons >= nearMisses.utf8.count, "every byte of the big script was looked at")
        try Self.compare(html)
        // 2,000 tiny JSON scripts: each is moved and put back in its own element.
        let json = String(repeating: "<script type=application/ld+json>{}</script>", count: 2_000)
        let jsonPage = "<html><head></head><body>\(json)<p>x</p></body></html>"
        var jsonInert = InertText(enabled: true)
        _ = try MarkupEstimate.check(Array(jsonPage.utf8), limits: limits, inertText: &jsonInert)
        #expect(jsonInert.restores.count == 2_000 && jsonInert.restores.allSatisfy { $0 })
        let (full, left) = try Self.compare(jsonPage)
        #expect(left == full)
    }

    @Test func labelledPagesGiveTheSameTree() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        let files = FileManager.default.enumerator(atPath: folder.path)?.compactMap { $0 as? String }
            .filter { $0.hasSuffix(".html") } ?? []
        #expect(files.count >= 16)
        for file in files {
            let bytes = try [UInt8](Data(contentsOf: folder.appendingPathComponent(file)))
            try Self.compare(bytes: bytes, "\(file)")
        }
    }

    /// Random pages from pieces that stress the raw-text boundaries; seeded, so every run is the same.
    @Test func randomPagesGiveTheSameTree() throws {
        let pieces = [
            "<script>", "</script>", "<style>", "</style>", "<svg>", "</svg>", "<path d=1/>", "<math>", "</math>",
            "<foreignObject>", "<desc>", "<title>", "</title>", "<textarea>", "</textarea>", "<select>", "</select>",
            "<!--", "-->", "--!>", "<!x>", "<?p ?>", "<div ", "=\"", "\"", "'", ">", "<", "/", "=", "<p>", "</p>",
            "<b>", "</b>", "<table>", "<td>", "text ", "a<b ", "&amp;", "</SCRIPT", " ", "\n", "<\u{0F}",
            "<script type=application/ld+json>", "<noscript>", "</noscript>", "<template>", "</template>",
            "<xmp>", "</xmp>", "<plaintext>", "<iframe>", "</iframe>", "<frameset>", "<frame>",
            "longer words of text ", "  \n  text after spaces", "<pre>", "\u{E000}", "&#xE000;", "]]>", "<![CDATA[",
            "<colgroup>", "<caption>", "</body>", "</html>", "<head>", "</head>",
        ]
        var random = XorShift(seed: 0x5EED_1E57)
        for round in 0..<3_000 {
            let count = 5 + Int(random.next() % 40)
            let html = (0..<count).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }.joined()
            try Self.compare(html, "round \(round): \(html.debugDescription)")
        }
    }

    /// xorshift64*: seeded, so a failing round is reproducible from its number.
    struct XorShift {
        var state: UInt64
        init(seed: UInt64) { state = seed | 1 }
        mutating func next() -> UInt64 {
            state ^= state >> 12
            state ^= state << 25
            state ^= state >> 27
            return state &* 0x2545_F491_4F6C_DD1D
        }
    }
}

struct TextRunsPlaceholderTests {
    /// Every placeholder is the UTF-8 of a private-use scalar gumbo keeps (never U+xFFFE/F), and
    /// reads back as its own index.
    @Test func placeholdersRoundTrip() {
        for index in Array(0..<20) + [0x18FF, 0x1900, 0x1901, 0x1900 + 0xFFFD, 0x1900 + 0xFFFE, TextRuns.capacity - 1] {
            var bytes: [UInt8] = []
            TextRuns.appendPlaceholder(index, to: &bytes)
            let scalars = Array(String(decoding: bytes, as: UTF8.self).unicodeScalars)
            #expect(scalars.count == 1 && TextRuns.isPrivateUse(scalars[0].value) && scalars[0].value & 0xFFFE != 0xFFFE)
            let back = bytes.withUnsafeBufferPointer { TextRuns.placeholder(in: $0, at: 0) }
            #expect(back?.index == index && back?.length == bytes.count)
        }
    }
}

extension TextRunsPlaceholderTests {
    /// The word-at-a-time scan finds a private-use character or reference at every alignment,
    /// and passes over text that only looks close (other three- and four-byte characters, `&`
    /// that is no numeric reference).
    @Test func privateUseIsFoundAtEveryOffset() {
        for found in ["\u{E000}", "\u{F8FF}", "\u{F0000}", "\u{10FFFD}", "&#xE000;", "&#57344;"] {
            for offset in 0..<17 {
                let text = String(repeating: "a", count: offset) + found + String(repeating: "b", count: 17 - offset)
                #expect(TextRuns.containsPrivateUse(Array(text.utf8)), "\(found.debugDescription) at \(offset)")
            }
        }
        let near = String(repeating: "x&amp;\u{F900}\u{1F600}\u{FFFD}&#xDFFF;&#63744;é", count: 9)
        #expect(!TextRuns.containsPrivateUse(Array(near.utf8)))
    }
}

extension TextRunsPlaceholderTests {
    /// The worst shapes for the placeholders, with the bounds they show: more runs than there are
    /// placeholders (the list stops at `capacity`, gumbo's input only shrinks, the tree is the
    /// same), and a numeric reference a megabyte long (read once; its value saturates, and a value
    /// past U+10FFFF counts as private use, which only leaves the page's text alone).
    @Test func worstShapesStayBounded() throws {
        let html = "<html><body><p>" + String(repeating: "abcdefgh < ", count: TextRuns.capacity + 3_000) + "</p></body></html>"
        let bytes = Array(html.utf8)
        var inert = InertText(enabled: true)
        inert.substitutesText = true
        _ = try MarkupEstimate.check(bytes, limits: InertTextTests.leaving, inertText: &inert)
        #expect(inert.textRuns.count == TextRuns.capacity)
        #expect(inert.removing(from: bytes).bytes.count < bytes.count)
        try InertTextTests.compare(bytes: bytes, "runs past capacity")

        let digits = Array(("<p>&#" + String(repeating: "9", count: 1_000_000) + "</p>").utf8)
        #expect(TextRuns.containsPrivateUse(digits))
        let pairs = Array(String(repeating: "&#&#x", count: 200_000).utf8)
        #expect(!TextRuns.containsPrivateUse(pairs))
    }
}
