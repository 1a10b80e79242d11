import PulseModel

/// Repeated text removed before detection: feeds often repeat the headline as the summary and the
/// summary as the body's first paragraph, and CLD2 would count those bytes twice, so the same
/// article's answer depended on how its feed was written.
enum TextDeduplication {
    /// The sentences of `text` not yet in `seen` (normalised: lower case, runs of spaces and
    /// punctuation folded), joined by spaces; adds them to `seen`.
    static func newSentences(in text: Substring, seen: inout Set<String>) -> String {
        var kept: [Substring] = []
        for sentence in sentences(of: text) {
            let key = normalized(sentence)
            guard !key.isEmpty else { continue }
            if seen.insert(key).inserted { kept.append(sentence) }
        }
        return kept.joined(separator: " ")
    }

    /// Cuts after ". ", "! ", "? " (and the full-width, Arabic and Devanagari stops) and at line
    /// breaks. Abbreviations cut too early only make a repeat harder to spot, never lose text.
    /// Scans the UTF-8 bytes (see TextScan): this runs on every stored article.
    static func sentences(of text: Substring) -> [Substring] {
        var cuts: [(start: Int, end: Int)] = []
        TextScan.withBytes(text) { bytes in
            var start = 0
            TextScan.forEachScalar(bytes) { value, range in
                let ends: Bool
                switch value {
                case 0x0A, 0x0D, 0x2028, 0x2029, 0x3002, 0xFF01, 0xFF1F, 0x061F, 0x0964: ends = true
                case 0x2E, 0x21, 0x3F:
                    ends = range.upperBound == bytes.count || bytes[range.upperBound] == 0x20 || bytes[range.upperBound] == 0x0A
                default: ends = false
                }
                if ends {
                    cuts.append(trimmedStart(bytes, start, range.upperBound))
                    start = range.upperBound
                }
            }
            cuts.append(trimmedStart(bytes, start, bytes.count))
        }
        let utf8 = text.utf8
        return cuts.compactMap { cut in
            guard cut.start < cut.end else { return nil }
            let from = utf8.index(utf8.startIndex, offsetBy: cut.start)
            return text[from..<utf8.index(from, offsetBy: cut.end - cut.start)]
        }
    }

    /// The sentence's byte range without its leading spaces, tabs and line breaks.
    private static func trimmedStart(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> (start: Int, end: Int) {
        var from = start
        while from < end, bytes[from] == 0x20 || bytes[from] == 0x0A || bytes[from] == 0x09 || bytes[from] == 0x0D { from += 1 }
        return (from, end)
    }

    static func normalized(_ sentence: Substring) -> String { TextKey.words(sentence) }
}
