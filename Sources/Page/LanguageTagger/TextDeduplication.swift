import PulseModel
import TextSupport

/// Repeated text removed before detection: feeds often repeat the headline as the summary and the
/// summary as the body's first paragraph, and CLD2 would count those bytes twice, so the same
/// article's answer depended on how its feed was written.
enum TextDeduplication {
    /// Appends to `out` the sentences of `text` not yet in `seen` (compared normalised: lower
    /// case, runs of spaces and punctuation folded), joined by spaces; adds them to `seen`. Read
    /// and written on the UTF-8 bytes: this runs on every stored article, and a Substring per
    /// sentence and a joined String were a third of the language rule's own time. Sentences are
    /// remembered by `TextKey.fingerprint`, not by their key Strings (half of what was left).
    static func appendNewSentences(of text: Substring, seen: inout Set<UInt64>, to out: inout [UInt8]) {
        TextScan.withBytes(text) { bytes in
            let start = out.count
            for cut in sentences(of: bytes) {
                let sentence = UnsafeBufferPointer(rebasing: bytes[cut.start..<cut.end])
                guard let key = TextKey.fingerprint(utf8: sentence), seen.insert(key).inserted else { continue }
                if out.count > start { out.append(0x20) }
                out.append(contentsOf: sentence)
            }
        }
    }

    /// Cuts after ". ", "! ", "? " (and the full-width, Arabic and Devanagari stops) and at line
    /// breaks. Abbreviations cut too early only make a repeat harder to spot, never lose text.
    /// Each cut is a non-empty byte range without its leading spaces, tabs and line breaks.
    static func sentences(of bytes: UnsafeBufferPointer<UInt8>) -> [(start: Int, end: Int)] {
        var cuts: [(start: Int, end: Int)] = []
        var start = 0
        func cut(_ end: Int) {
            var from = start
            while from < end, bytes[from] == 0x20 || bytes[from] == 0x0A || bytes[from] == 0x09 || bytes[from] == 0x0D {
                from += 1
            }
            if from < end { cuts.append((from, end)) }
            start = end
        }
        TextScan.forEachScalar(bytes) { value, range in
            let ends: Bool
            switch value {
            case 0x0A, 0x0D, 0x2028, 0x2029, 0x3002, 0xFF01, 0xFF1F, 0x061F, 0x0964: ends = true
            case 0x2E, 0x21, 0x3F:
                ends = range.upperBound == bytes.count || bytes[range.upperBound] == 0x20 || bytes[range.upperBound] == 0x0A
            default: ends = false
            }
            if ends { cut(range.upperBound) }
        }
        cut(bytes.count)
        return cuts
    }
}
