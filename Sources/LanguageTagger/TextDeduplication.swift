/// Repeated text removed before detection: feeds often repeat the headline as the summary and the
/// summary as the body's first paragraph, and CLD2 would count those bytes twice, so the same
/// article's answer depended on how its feed was written.
enum TextDeduplication {
    /// The sentences of `text` not yet in `seen` (normalised: lower case, runs of spaces and
    /// punctuation folded), joined by spaces; adds them to `seen`.
    static func newSentences(in text: String, seen: inout Set<String>) -> String {
        var kept: [Substring] = []
        for sentence in sentences(of: text) {
            let key = normalized(sentence)
            guard !key.isEmpty else { continue }
            if seen.insert(key).inserted { kept.append(sentence) }
        }
        return kept.joined(separator: " ")
    }

    /// Cuts after ". ", "! ", "? " (and their full-width and Arabic/Devanagari forms) and at line
    /// breaks. Abbreviations cut too early only make a repeat harder to spot, never text lost.
    static func sentences(of text: String) -> [Substring] {
        var result: [Substring] = []
        var start = text.startIndex
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            let next = text.index(after: index)
            let ends = character.isNewline
                || ("。！？؟।".contains(character))
                || (".!?".contains(character) && (next == text.endIndex || text[next].isWhitespace))
            if ends {
                let sentence = text[start..<next].trimmingWhitespace
                if !sentence.isEmpty { result.append(sentence) }
                start = next
            }
            index = next
        }
        let rest = text[start...].trimmingWhitespace
        if !rest.isEmpty { result.append(rest) }
        return result
    }

    static func normalized(_ sentence: Substring) -> String {
        var key = ""
        key.reserveCapacity(sentence.utf8.count)
        var pendingSpace = false
        for character in sentence.lowercased() {
            if character.isLetter || character.isNumber {
                if pendingSpace && !key.isEmpty { key.append(" ") }
                pendingSpace = false
                key.append(character)
            } else {
                pendingSpace = true
            }
        }
        return key
    }
}

extension Substring {
    fileprivate var trimmingWhitespace: Substring {
        var slice = self
        while let first = slice.first, first.isWhitespace { slice = slice.dropFirst() }
        while let last = slice.last, last.isWhitespace { slice = slice.dropLast() }
        return slice
    }
}
