import Enrichment
import FeedParser
import Foundation
import HTMLDocument

// A mutation fuzzer for the feed parser and the page analyser (libFuzzer's -sanitize=fuzzer
// needs the whole graph rebuilt instrumented; this driver needs nothing but the normal build).
// Usage: pulse-fuzz SECONDS CORPUS_DIR FINDINGS_DIR
// Each input is written to FINDINGS_DIR/current before it runs, so a crash leaves it behind;
// an input that takes more than 3 s of CPU is kept as slow-N.<ext>. Exit 1 when anything was found.
// Pages are also parsed with and without their script and style text (`InertText`): a tree that
// differs anywhere else is kept as mismatch-N.html.

let arguments = CommandLine.arguments
guard arguments.count == 4, let seconds = Double(arguments[1]) else {
    FileHandle.standardError.write(Data("usage: pulse-fuzz SECONDS CORPUS_DIR FINDINGS_DIR\n".utf8))
    exit(64)
}
let corpusURL = URL(fileURLWithPath: arguments[2])
let findingsURL = URL(fileURLWithPath: arguments[3])
try FileManager.default.createDirectory(at: findingsURL, withIntermediateDirectories: true)
let seeds: [(name: String, bytes: [UInt8])] = try FileManager.default
    .contentsOfDirectory(atPath: corpusURL.path).sorted().compactMap { name in
        guard let data = FileManager.default.contents(atPath: corpusURL.appendingPathComponent(name).path) else { return nil }
        return (name, [UInt8](data))
    }
guard !seeds.isEmpty else { print("no seeds in \(corpusURL.path)"); exit(64) }

/// Fragments that reach the parsers' interesting states (comments, raw text, foreign content,
/// formatting elements, entities, CDATA, attributes).
let tokens: [[UInt8]] = [
    "<!-->", "<!--", "-->", "--!>", "<!x>", "<?x?>", "</>", "<div>", "</div>", "<p>", "<b id=1>", "</b>", "</i>",
    "<script>", "</script>", "<style>", "<title>", "<textarea>", "<plaintext>", "<svg>", "</svg>", "<math>",
    "<table><tr><td>", "<a href=x>", "<![CDATA[", "]]>", "&lt;p a=1&gt;", "&amp;", "&#x1F600;", "&eacute;",
    " a=\"1\"", " xmlns=\"http://www.w3.org/1999/xhtml\"", "<entry>", "<item>", "</item>", "<content type=\"xhtml\">",
    "<description>", "<![CDATA[<p>", "<meta property=og:image content=http://x/i.jpg>", "\u{0}", "\u{FEFF}",
    "</script", "<select>", "<frameset>", "<foreignObject>", "<path d=1/>", "<script type=application/ld+json>",
    "<xmp>", "<iframe>", "<noscript>", "=\"", "<\u{0F}",
].map { Array($0.utf8) }

func mutate(_ input: [UInt8]) -> [UInt8] {
    var rng = SystemRandomNumberGenerator()
    var bytes = input
    for _ in 0..<Int.random(in: 1...6, using: &rng) {
        let at = bytes.isEmpty ? 0 : Int.random(in: 0...bytes.count, using: &rng)
        switch Int.random(in: 0..<6, using: &rng) {
        case 0 where !bytes.isEmpty: bytes[min(at, bytes.count - 1)] = UInt8.random(in: 0...255, using: &rng)
        case 1: bytes.insert(contentsOf: tokens.randomElement(using: &rng)!, at: at)
        case 2 where bytes.count > 1:
            let end = min(bytes.count, at + Int.random(in: 1...64, using: &rng))
            bytes.removeSubrange(min(at, end)..<end)
        case 3:
            // Repeat a token or a slice many times: floods and nesting.
            let piece = tokens.randomElement(using: &rng)!
            let times = [10, 100, 1_000, 20_000].randomElement(using: &rng)!
            bytes.insert(contentsOf: Array([[UInt8]](repeating: piece, count: times).joined()), at: at)
        case 4 where bytes.count > 8:
            let start = Int.random(in: 0..<(bytes.count - 1), using: &rng)
            let slice = Array(bytes[start..<min(bytes.count, start + Int.random(in: 1...256, using: &rng))])
            bytes.insert(contentsOf: slice, at: at)
        default:
            bytes.insert(contentsOf: seeds.randomElement(using: &rng)!.bytes.prefix(512), at: at)
        }
    }
    return Array(bytes.prefix(6_000_000))
}

func cpuSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

/// The nodes outside the text of script and style elements, in document order, and that text
/// apart as (index of its element among those nodes, text). Compared in place, never printed:
/// cloned formatting elements can repeat a large attribute thousands of times.
func treeOutsideRawText(_ document: HTMLDocument) -> (tree: [Int], rawText: [(element: Int, text: String)]) {
    var tree: [Int] = []
    var rawText: [(element: Int, text: String)] = []
    var position: [Int: Int] = [:]
    for (index, node) in document.nodes.enumerated() {
        let parent = node.parent.map { document[$0].tag } ?? ""
        if node.kind == .text && (parent == "script" || parent == "style") {
            rawText.append((node.parent.flatMap { position[$0.index] } ?? -1, node.text))
            continue
        }
        position[index] = tree.count
        tree.append(index)
    }
    return (tree, rawText)
}

/// The tree must not change outside raw text, and every raw text kept must be the one gumbo gives.
func leavingOutRawTextChangesTheTree(_ input: [UInt8]) -> Bool {
    var leaving = HTMLParseLimits()
    leaving.leavesOutScriptAndStyleText = true
    guard let full = try? HTMLDocument.parse(input), let left = try? HTMLDocument.parse(input, limits: leaving) else {
        return false
    }
    let (fullShape, leftShape) = (treeOutsideRawText(full), treeOutsideRawText(left))
    guard fullShape.tree.count == leftShape.tree.count else { return true }
    for (a, b) in zip(fullShape.tree, leftShape.tree) {
        let (x, y) = (full.nodes[a], left.nodes[b])
        let parents = (x.parent.map { full[$0].tag } ?? "", y.parent.map { left[$0].tag } ?? "")
        if x.kind != y.kind || x.tag != y.tag || parents.0 != parents.1 || x.attributes != y.attributes || x.text != y.text {
            return true
        }
    }
    // Every raw text kept is one gumbo gave the same element.
    var given: [Int: [String]] = [:]
    for (element, text) in fullShape.rawText { given[element, default: []].append(text) }
    return !leftShape.rawText.allSatisfy { given[$0.element]?.contains($0.text) == true }
}

let currentURL = findingsURL.appendingPathComponent("current")
let deadline = Date().addingTimeInterval(seconds)
var runs = 0
var slow = 0
var mismatches = 0
var rng = SystemRandomNumberGenerator()
while Date() < deadline {
    let seed = seeds.randomElement(using: &rng)!
    let input = mutate(seed.bytes)
    let isFeed = seed.name.hasSuffix(".xml")
    try Data(input).write(to: currentURL)
    let before = cpuSeconds()
    var spent = 0.0
    if isFeed {
        _ = try? FeedParser.parse(input, contentType: nil, baseURL: "https://example.com/feed")
        spent = cpuSeconds() - before
    } else {
        _ = (try? PageAnalysis.analyze(page: input, contentType: nil, pageURL: "https://example.com/a"))?
            .language(configured: "en", detectionEnabled: true)
        // The product's work only: the comparison below is the harness's.
        spent = cpuSeconds() - before
        if leavingOutRawTextChangesTheTree(input) {
            mismatches += 1
            let name = "mismatch-\(mismatches).html"
            try Data(input).write(to: findingsURL.appendingPathComponent(name))
            print("tree or kept raw text differs without script and style text: \(findingsURL.appendingPathComponent(name).path)")
        }
    }
    runs += 1
    if spent > 3 {
        slow += 1
        let name = "slow-\(slow)-\(Int(spent))s.\(isFeed ? "xml" : "html")"
        try Data(input).write(to: findingsURL.appendingPathComponent(name))
        print("slow input (\(String(format: "%.1f", spent)) s CPU): \(findingsURL.appendingPathComponent(name).path)")
    }
}
try? FileManager.default.removeItem(at: currentURL)
print("pulse-fuzz: \(runs) runs over \(seeds.count) seeds in \(Int(seconds)) s, \(slow) slow inputs, \(mismatches) tree mismatches")
exit(slow + mismatches > 0 ? 1 : 0)
