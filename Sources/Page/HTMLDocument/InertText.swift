#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PulseModel
import TextSupport

/// Script and style text a caller never reads, found by the markup pre-scan so gumbo need not
/// tokenize it: on a news page it is most of the bytes (inline application state, analytics,
/// CSS), and gumbo reads raw text one code point at a time. Leaving it out changes nothing else in
/// the tree (`InertTextTests` compares both parses) as long as the pre-scan and gumbo's tokenizer
/// agree on where each raw text ends. They agree by construction for `<style>` and for `<script>`
/// without `<!--` in its text, in the tree-construction modes where those tags always start raw
/// text. Collection stops for the rest of the page at anything that could make them disagree:
/// a script with `<!--` (script-data escape states), `<select>` and `<frameset>` (where gumbo
/// ignores a `<style>` start tag), and, inside SVG or MathML, any element but plain drawing ones
/// (breakout tags and integration points change where foreign content ends) or a CDATA section.
/// Scripts whose attributes mention `json` (JSON-LD, which OpenGraph reads) or hold a character
/// reference keep their text. It leaves gumbo's input too, and the conversion puts it back as the
/// script's text node (`restores`): gumbo would turn it into the same text one code point at a
/// time (a tenth of a small page's parse). Only text gumbo passes through unchanged is moved: a
/// script ended by its end tag, with no character gumbo's input stream rewrites (CR, NUL, the
/// controls and noncharacters it replaces with U+FFFD); any other stays in gumbo's input.
/// While the pre-scan is trusted, runs of character data go to gumbo as placeholders too
/// (`TextRuns`, `textRuns`), to be put back by the conversion.
struct InertText {
    let enabled: Bool
    /// Every range left out of gumbo's input, in order.
    private(set) var ranges: [Range<Int>] = []
    /// For each of `ranges`: true when its text is put back (`removing(from:)` says where).
    private(set) var restores: [Bool] = []
    /// Character data handed to gumbo as placeholders (`TextRuns`); set by the caller when the
    /// page holds no private-use character.
    var substitutesText = false
    private(set) var textRuns: [Range<Int>] = []
    /// Byte comparisons made looking for `<!--` and `json`: at most 4 per byte of script text and
    /// script attributes (read by the worst-case test).
    private(set) var comparisons = 0
    private var stopped = false
    static let commentOpen = Array("<!--".utf8)
    static let json = Array("json".utf8)
    /// In SVG a CDATA section runs to `]]>` (or the end of input) as text, tags and all; the
    /// pre-scan reads `<![CDATA[` as a bogus comment ending at the next `>`.
    static let cdataOpen = Array("<![cdata[".utf8)

    init(enabled: Bool) { self.enabled = enabled }

    /// SVG elements that are neither breakout tags nor integration points: icons are made of them.
    static let plainForeignElements: Set<String> = [
        "svg", "g", "path", "circle", "rect", "line", "polyline", "polygon", "ellipse", "use", "defs", "symbol",
        "lineargradient", "radialgradient", "stop", "clippath", "mask", "pattern",
    ]

    /// `<svg>` elements open, counted here rather than with the pre-scan's generous counter: only
    /// plain drawing elements may come and go inside, so `</svg>` closes what gumbo closes.
    private var openSVG = 0
    /// Where the outermost open `<svg>`'s content starts.
    private var svgContentStart = 0

    mutating func observe(_ tag: TagScanner.Tag, scanner: TagScanner) {
        guard !stopped else { return }
        // The text before this tag, read with what the tags before it established.
        if substitutesText && openSVG == 0 {
            for run in scanner.textRuns where textRuns.count < TextRuns.capacity {
                if let part = TextRuns.substitutable(scanner.bytes, run) { textRuns.append(part) }
            }
        }
        let traits = tag.info.traits
        if openSVG > 0 || (traits.contains(.svg) && !tag.isEnd) {
            // gumbo keeps `<svg>` open at an end tag that carries anything after its name
            // (`</svg x>`, found by make fuzz): such a tag is not trusted to close anything.
            guard traits.contains(.plainForeign),
                  !tag.isEnd || scanner.bytes[scanner.attributeBytes].allSatisfy({ $0 == 0x3E || $0 == 0x0D || TextRuns.isHTMLSpace($0) })
            else {
                stopped = true
                return
            }
            if traits.contains(.svg) {
                if tag.isEnd {
                    openSVG -= 1
                    // A CDATA section inside may have hidden this `</svg>` and what follows from gumbo.
                    if openSVG == 0, Self.contains(scanner.bytes, svgContentStart..<scanner.attributeBytes.lowerBound,
                                                   Self.cdataOpen, comparisons: &comparisons) {
                        stopped = true
                    }
                } else if !tag.selfClosing {
                    if openSVG == 0 { svgContentStart = scanner.attributeBytes.upperBound }
                    openSVG += 1
                }
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
                || scanner.bytes[attributes].contains(0x26) {   // `&`: a reference may spell "json"
                // Unterminated, the text runs to the end of input, where gumbo's tokenizer reads
                // a trailing `</script` as text: left in, rather than reasoned about.
                if text.upperBound < scanner.bytes.count, Self.passesThroughGumbo(scanner.bytes, text) {
                    ranges.append(text)
                    restores.append(true)
                }
                return
            }
        }
        ranges.append(text)
        restores.append(false)
    }

    /// True when gumbo's input stream would hand every code point of `range` (valid UTF-8) to the
    /// tokenizer unchanged: no CR (folded into LF), no NUL, and none of the code points gumbo's
    /// `utf8_is_invalid_code_point` replaces with U+FFFD (C0 controls but tab, LF and FF; DEL
    /// and C1 controls; U+FDD0-U+FDEF; U+xFFFE and U+xFFFF). `refusingMarkup` also refuses `&`
    /// and `>` (`TextRuns`), in the same pass.
    static func passesThroughGumbo(_ bytes: [UInt8], _ range: Range<Int>, refusingMarkup: Bool = false) -> Bool {
        bytes.withUnsafeBufferPointer { whole in
            let buffer = UnsafeBufferPointer(rebasing: whole[..<range.upperBound])
            var index = range.lowerBound
            while index < buffer.count {
                let byte = buffer[index]
                if byte < 0x80 {
                    if (byte < 0x20 && byte != 0x09 && byte != 0x0A && byte != 0x0C) || byte == 0x7F { return false }
                    if refusingMarkup && (byte == 0x26 || byte == 0x3E) { return false }
                    index += 1
                    continue
                }
                let (scalar, next) = TextScan.scalar(at: index, in: buffer)
                if scalar <= 0x9F || (0xFDD0...0xFDEF).contains(scalar) || scalar & 0xFFFE == 0xFFFE { return false }
                index = next
            }
            return true
        }
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

    /// `bytes` without the collected ranges and with each text run as its placeholder, and where
    /// each script text to put back was: its offset in the result (the end of its script's start
    /// tag) to its range in `bytes`. (Both lists are in document order and never overlap.)
    func removing(from bytes: [UInt8]) -> (bytes: [UInt8], restoring: [Int: Range<Int>]) {
        var result: [UInt8] = []
        var restoring: [Int: Range<Int>] = [:]
        result.reserveCapacity(bytes.count - ranges.reduce(0) { $0 + $1.count } + 4 * textRuns.count)
        var start = 0
        var nextRange = 0
        var nextRun = 0
        while nextRange < ranges.count || nextRun < textRuns.count {
            if nextRun == textRuns.count || (nextRange < ranges.count && ranges[nextRange].lowerBound < textRuns[nextRun].lowerBound) {
                let range = ranges[nextRange]
                result.append(contentsOf: bytes[start..<range.lowerBound])
                if restores[nextRange] { restoring[result.count] = range }
                start = range.upperBound
                nextRange += 1
            } else {
                let run = textRuns[nextRun]
                result.append(contentsOf: bytes[start..<run.lowerBound])
                TextRuns.appendPlaceholder(nextRun, to: &result)
                start = run.upperBound
                nextRun += 1
            }
        }
        result.append(contentsOf: bytes[start...])
        return (result, restoring)
    }
}
