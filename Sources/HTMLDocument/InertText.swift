#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Script and style text a caller never reads, found by the markup pre-scan so gumbo need not
/// tokenize it: on a news page it is most of the bytes (inline application state, analytics,
/// CSS), and gumbo reads raw text one code point at a time. Leaving it out changes nothing else in
/// the tree (`InertTextTests` compares both parses) as long as the pre-scan and gumbo's tokenizer
/// agree on where each raw text ends. They agree by construction for `<style>` and for `<script>`
/// without `<!--` in its text, in the tree-construction modes where those tags always start raw
/// text. Collection stops for the rest of the page at anything that could make them disagree:
/// a script with `<!--` (script-data escape states), `<select>` and `<frameset>` (where gumbo
/// ignores a `<style>` start tag), and, inside SVG or MathML, any element but plain drawing ones
/// (breakout tags and integration points change where foreign content ends).
/// Scripts whose attributes mention `json` (JSON-LD, which OpenGraph reads) or hold a character
/// reference keep their text.
struct InertText {
    let enabled: Bool
    private(set) var ranges: [Range<Int>] = []
    /// Byte comparisons made looking for `<!--` and `json`: at most 4 per byte of script text and
    /// script attributes (read by the worst-case test).
    private(set) var comparisons = 0
    private var stopped = false
    static let commentOpen = Array("<!--".utf8)
    static let json = Array("json".utf8)

    init(enabled: Bool) { self.enabled = enabled }

    /// SVG elements that are neither breakout tags nor integration points: icons are made of them.
    static let plainForeignElements: Set<String> = [
        "svg", "g", "path", "circle", "rect", "line", "polyline", "polygon", "ellipse", "use", "defs", "symbol",
        "lineargradient", "radialgradient", "stop", "clippath", "mask", "pattern",
    ]

    /// `<svg>` elements open, counted here rather than with the pre-scan's generous counter: only
    /// plain drawing elements may come and go inside, so `</svg>` closes what gumbo closes.
    private var openSVG = 0

    mutating func observe(_ tag: TagScanner.Tag, scanner: TagScanner) {
        guard !stopped else { return }
        let traits = tag.info.traits
        if openSVG > 0 || (traits.contains(.svg) && !tag.isEnd) {
            guard traits.contains(.plainForeign) else {
                stopped = true
                return
            }
            if traits.contains(.svg) {
                if tag.isEnd { openSVG -= 1 } else if !tag.selfClosing { openSVG += 1 }
            }
            return
        }
        guard !tag.isEnd else { return }
        if traits.contains(.stopsInertText) {
            stopped = true
            return
        }
        guard traits.contains(.script) || traits.contains(.style), let text = scanner.rawText, !text.isEmpty else { return }
        if traits.contains(.script) {
            if Self.contains(scanner.bytes, text, Self.commentOpen, comparisons: &comparisons) {
                stopped = true
                return
            }
            let attributes = scanner.attributeBytes
            if Self.contains(scanner.bytes, attributes, Self.json, comparisons: &comparisons)
                || scanner.bytes[attributes].contains(0x26) { return }   // `&`: a reference may spell "json"
        }
        ranges.append(text)
    }

    /// `needle` (lower-case ASCII) inside `range` of `bytes`, ASCII letters compared without case.
    static func contains(_ bytes: [UInt8], _ range: Range<Int>, _ needle: [UInt8], comparisons: inout Int) -> Bool {
        guard range.count >= needle.count else { return false }
        func same(_ byte: UInt8, _ wanted: UInt8) -> Bool {
            byte == wanted || (TagScanner.isLetter(wanted) && byte | 0x20 == wanted)
        }
        var index = range.lowerBound
        // A first byte that is not a letter has one spelling: memchr finds the places to compare
        // (script text is most of a page's bytes). The bytes it passes count as looked at.
        let jumps = !TagScanner.isLetter(needle[0])
        while index + needle.count <= range.upperBound {
            if jumps {
                let found = bytes.withUnsafeBufferPointer { buffer -> Int in
                    let count = range.upperBound - needle.count + 1 - index
                    guard let base = buffer.baseAddress, let hit = memchr(base + index, Int32(needle[0]), count) else {
                        return range.upperBound - needle.count + 1
                    }
                    return base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                }
                comparisons += found - index
                index = found
                guard index + needle.count <= range.upperBound else { break }
            }
            var offset = 0
            while offset < needle.count, same(bytes[index + offset], needle[offset]) { offset += 1 }
            comparisons += min(offset + 1, needle.count)
            if offset == needle.count { return true }
            index += 1
        }
        return false
    }

    /// `bytes` without the collected ranges.
    func removing(from bytes: [UInt8]) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count - ranges.reduce(0) { $0 + $1.count })
        var start = 0
        for range in ranges {
            result.append(contentsOf: bytes[start..<range.lowerBound])
            start = range.upperBound
        }
        result.append(contentsOf: bytes[start...])
        return result
    }
}
