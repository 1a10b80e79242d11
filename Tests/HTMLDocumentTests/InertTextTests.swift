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

    /// Every node as a line; the text under script and style elements is reported apart.
    static func shape(_ document: HTMLDocument) -> (nodes: [String], rawText: [String]) {
        var nodes: [String] = []
        var rawText: [String] = []
        for (index, node) in document.nodes.enumerated() {
            let parentTag = node.parent.map { document[$0].tag } ?? ""
            let parentIsRaw = node.kind == .text && (parentTag == "script" || parentTag == "style")
            if parentIsRaw {
                rawText.append(node.text)
                continue
            }
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
        #expect(left == [#"{"@type": "NewsArticle"}"#], "only the JSON-LD text stays")
    }

    @Test(arguments: [
        #"<script type="application/ld+json">{}</script>"#,
        #"<script type="application/ld&#x2B;json">{}</script>"#,
        #"<script type="APPLICATION/JSON" id="__NEXT_DATA__">{}</script>"#,
    ])
    func jsonScriptsKeepTheirText(_ script: String) throws {
        let (_, left) = try Self.compare("<html><head>\(script)</head><body><p>x</p></body></html>")
        #expect(left == ["{}"])
    }

    /// Each of these makes the rest of the page keep its raw text (and the tree is the same).
    @Test(arguments: [
        "<script><!-- document.write('<script>x</script>'); --></script><p>after</p>",
        "<svg><foreignObject><div></svg><script>x<p>y</p></script></div></foreignObject></svg>",
        "<svg><title><b>t</svg><script>x<p>y</p></script>",
        "<math><mi><script>x</script></mi></math>",
        "<select><style>a<b>c</b></style></select>",
        "<frameset><style>a<frame></style></frameset>",
    ])
    func shapesWhereTheScansCouldDisagreeStopTheLeavingOut(_ opener: String) throws {
        let (full, left) = try Self.compare("<html><body>\(opener)<style>later</style><p>z</p></body></html>")
        #expect(full.contains("later") && left.contains("later"))
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
        "<script>unterminated",
        "<style>unterminated",
        "<script></SCRIPT ><p>a</p><script>b</script/><p>c</p>",
        "<scriptx>not a script</scriptx>",
        "<template><script>x</script></template>",
        "<p>a</p><plaintext><script>x</script>",
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
