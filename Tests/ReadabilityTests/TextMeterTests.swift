import TextSupport
import Testing
@testable import Readability
import PulseModel

/// TextMeter counts what Readability.js's `_getInnerText(node).length` and its comma count give:
/// UTF-16 units after trimming and collapsing whitespace. Its byte loop is held to a plain
/// per-scalar reading of that definition.
@Suite struct TextMeterTests {
    static func reference(_ texts: [String]) -> (length: Int, commas: Int) {
        var length = 0, commas = 0, pendingSpace = false, seenText = false
        for text in texts {
            for scalar in text.unicodeScalars {
                if TextMeter.isJSWhitespace(scalar.value) {
                    if seenText { pendingSpace = true }
                    continue
                }
                if pendingSpace { length += 1; pendingSpace = false }
                length += scalar.utf16.count
                seenText = true
                if scalar == "," || scalar.value == 0x060C || TextMeter.isWideComma(scalar.value) { commas += 1 }
            }
        }
        return (length, commas)
    }

    @Test func randomTextsAgreeWithTheDefinition() {
        let pieces = ["word", "Longer-sentence.", ",", " ", "  ", "\n\t", "\u{A0}", "\u{2003}", "\u{3000}", "\u{FEFF}",
                      "\u{060C}", "\u{FF0C}", "é", "東京", "😀", "a,b,c,d,e,f", "!!!!~~~~", "\u{7F}", "12345678"]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5_000 {
            let texts = (0..<Int.random(in: 1...4, using: &generator)).map { _ in
                (0..<Int.random(in: 0...12, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            }
            var meter = TextMeter()
            for text in texts { meter.add(text) }
            // Subtrees are measured from each text node's summary: the same numbers.
            var combined = TextMeter()
            for text in texts { combined.add(TextMeter.summary(of: text)) }
            let expected = Self.reference(texts)
            #expect(meter.length == expected.length && meter.commas == expected.commas, "\(texts)")
            #expect(combined.length == expected.length && combined.commas == expected.commas, "summaries of \(texts)")
        }
    }

    @Test func everyASCIIByteInEveryPositionOfAWord() {
        for byte in 0...127 {
            for position in 0..<8 {
                var bytes = Array("abcdefgh".utf8)
                bytes[position] = UInt8(byte)
                let text = String(decoding: bytes + Array("ijklmnop".utf8), as: UTF8.self)
                var meter = TextMeter()
                meter.add(text)
                let expected = Self.reference([text])
                #expect(meter.length == expected.length && meter.commas == expected.commas, "byte \(byte) at \(position)")
            }
        }
    }
}

/// `innerText` copies runs of bytes that cannot begin a space in one go; it must still give the
/// plain definition: JavaScript-whitespace runs collapsed to one space, none at either end, across
/// text-node boundaries. The pieces put every lead byte that can begin a space (C2, E1, E2, E3, EF)
/// in front of both spaces and non-spaces.
@Suite struct InnerTextTests {
    static func reference(_ texts: [String]) -> String {
        var scalars = String.UnicodeScalarView()
        var pendingSpace = false
        for text in texts {
            for scalar in text.unicodeScalars {
                if TextMeter.isJSWhitespace(scalar.value) {
                    if !scalars.isEmpty { pendingSpace = true }
                    continue
                }
                if pendingSpace { scalars.append(" "); pendingSpace = false }
                scalars.append(scalar)
            }
        }
        return String(scalars)
    }

    @Test func randomTextsAgreeWithTheDefinition() {
        let pieces = ["word", " ", "  ", "\n\t", "\u{A0}", "\u{A9}", "\u{1680}", "\u{1E9E}", "\u{2003}", "\u{2014}", "\u{20AC}",
                      "\u{2028}", "\u{202F}", "\u{205F}", "\u{3000}", "\u{3042}", "\u{FEFF}", "\u{FF0C}", "é", "😀", ",", "x"]
        var generator = SystemRandomNumberGenerator()  // a failure prints its case
        for _ in 0..<3_000 {
            let texts = (0..<Int.random(in: 1...4, using: &generator)).map { _ in
                (0..<Int.random(in: 0...10, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            }
            let arena = DOMArena()
            let element = arena.element("p")
            for text in texts { element.appendChild(arena.make(.text, text: text)) }
            #expect(element.innerText == Self.reference(texts), "\(texts)")
            let lone = arena.make(.text, text: texts[0])
            for limit in [1, 2, 5, 13, 40] {
                #expect(element.textPrefix(limit) == Self.referencePrefix(texts, limit), "\(limit) of \(texts)")
                #expect(lone.textPrefix(limit) == Self.referencePrefix([texts[0]], limit), "\(limit) of \(texts[0])")
            }
            #expect(element.hasNoText == Self.reference(texts).isEmpty, "\(texts)")
            #expect(lone.hasNoText == Self.reference([texts[0]]).isEmpty, "\(texts[0])")
        }
    }

    /// `textPrefix` as it was written on scalars: the first `limit` scalars of the collapsed text,
    /// and one more when the limit falls on a pending space.
    static func referencePrefix(_ texts: [String], _ limit: Int) -> String {
        var result = String.UnicodeScalarView()
        var count = 0
        var pendingSpace = false
        for text in texts where count < limit {
            for scalar in text.unicodeScalars {
                if TextMeter.isJSWhitespace(scalar.value) {
                    if count > 0 { pendingSpace = true }
                    continue
                }
                if pendingSpace { result.append(" "); pendingSpace = false; count += 1 }
                result.append(scalar)
                count += 1
                if count >= limit { break }
            }
        }
        return String(result)
    }
}

/// `TextCleaning.clean` answers clean text with a read-only scan (`isClean`); that scan must say
/// "clean" exactly when the full pass would return the text unchanged.
@Suite struct TextCleaningShortcutTests {
    @Test func theScanAgreesWithTheFullPass() {
        let pieces = ["word", " ", "  ", "\n", "\t", "\u{A0}", "\u{7F}", "\u{85}", "\u{9F}", "\u{200E}", "\u{202A}",
                      "\u{2066}", "\u{FEFF}", "\u{2003}", "\u{3000}", "\u{2019}", "é", "😀", "\u{61C}", "x", "\u{1}"]
        var generator = SystemRandomNumberGenerator()  // a failure prints its case
        for _ in 0..<5_000 {
            let text = (0..<Int.random(in: 0...8, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            let full = TextScan.transform(text) { bytes, out in
                var pendingSpace = false
                TextScan.forEachScalar(bytes) { value, range in
                    if TextMeter.isJSWhitespace(value) { if !out.isEmpty { pendingSpace = true }; return }
                    if TextCleaning.isUnsafe(value) { return }
                    if pendingSpace { out.append(0x20); pendingSpace = false }
                    TextScan.appendScalar(bytes, range, to: &out)
                }
            }
            let isClean = TextScan.withBytes(text, TextCleaning.isClean)
            #expect(isClean == (full == text), "\(Array(text.unicodeScalars))")
            #expect(TextCleaning.clean(text) == full, "\(Array(text.unicodeScalars))")
        }
    }
}

/// `collapsedASCII` against the split-and-join it replaced, for both separator sets it is used with.
@Suite struct CollapsedASCIITests {
    @Test func answersAsSplitAndJoinDo() {
        let pieces = ["a", "Word", " ", "  ", "\t", "\n", "\r\n", "\u{0B}", "|", "-", "é"]
        var generator = SystemRandomNumberGenerator()  // a failure prints its case
        for _ in 0..<3_000 {
            let text = (0..<Int.random(in: 0...8, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            let spaces: (UInt8) -> Bool = { $0 == 0x20 }
            let whitespace: (UInt8) -> Bool = { $0 == 0x20 || ($0 >= 0x09 && $0 <= 0x0D) }
            for isSeparator in [spaces, whitespace] {
                let expected = text.utf8.allSatisfy({ $0 < 0x80 })
                    ? text.utf8.split(whereSeparator: isSeparator).map { Substring($0) }.joined(separator: " ") : nil
                #expect(Extractor.collapsedASCII(text, separator: isSeparator) == expected, "\(text.debugDescription)")
            }
        }
    }
}
