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
    /// Works on scalars: this runs on every stored article.
    static func sentences(of text: Substring) -> [Substring] {
        var result: [Substring] = []
        let scalars = text.unicodeScalars
        var start = scalars.startIndex
        var index = scalars.startIndex
        while index < scalars.endIndex {
            let scalar = scalars[index]
            let next = scalars.index(after: index)
            let ends: Bool
            switch scalar.value {
            case 0x0A, 0x0D, 0x2028, 0x2029, 0x3002, 0xFF01, 0xFF1F, 0x061F, 0x0964: ends = true
            case 0x2E, 0x21, 0x3F: ends = next == scalars.endIndex || scalars[next] == " " || scalars[next] == "\n"
            default: ends = false
            }
            if ends {
                append(text[start..<next], to: &result)
                start = next
            }
            index = next
        }
        append(text[start...], to: &result)
        return result
    }

    private static func append(_ sentence: Substring, to result: inout [Substring]) {
        var slice = sentence
        while let first = slice.unicodeScalars.first, first == " " || first == "\n" || first == "\t" || first == "\r" {
            slice = Substring(slice.unicodeScalars.dropFirst())
        }
        if !slice.isEmpty { result.append(slice) }
    }

    static func normalized(_ sentence: Substring) -> String { TextKey.words(sentence) }
}
