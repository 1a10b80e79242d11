import FoundationEssentials
import PulseModel
import OpenGraph
import TextSupport

/// `_getArticleTitle`, `_checkByline`, `_headerDuplicatesTitle` and output text cleanup.
extension Extractor {
    // On Unicode scalars, as Readability.js works on code units: Character-by-Character (grapheme
    // breaking, Unicode property lookups) was ~3% of an extraction's CPU on these few lines.
    /// `[\|\-\\\/>»]`, the title separators.
    static func isTitleSeparator(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x7C, 0x2D, 0x5C, 0x2F, 0x3E, 0xBB: true
        default: false
        }
    }

    /// `[\\\/>»]`, the separators of a "Site » Section » Story" path.
    static func isHierarchicalSeparator(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x5C, 0x2F, 0x3E, 0xBB: true
        default: false
        }
    }

    /// `str.split(/\s+/).length`, including the empty pieces JavaScript keeps at the ends.
    static func wordCount<S: StringProtocol>(_ text: S) -> Int { wordCount(scalars: text.unicodeScalars) }

    static func wordCount(scalars: some Sequence<Unicode.Scalar>) -> Int {
        var count = 1
        var inSpace = false
        for scalar in scalars {
            if scalar.isJSWhitespace {
                if !inSpace { count += 1; inSpace = true }
            } else {
                inSpace = false
            }
        }
        return count
    }

    /// Whether `text` has " X " with X a separator.
    static func hasSpacedSeparator(_ scalars: [Unicode.Scalar], _ isSeparator: (Unicode.Scalar) -> Bool) -> Bool {
        guard scalars.count >= 3 else { return false }
        for index in 1..<(scalars.count - 1) where isSeparator(scalars[index]) {
            if scalars[index - 1] == " " && scalars[index + 1] == " " { return true }
        }
        return false
    }

    /// `split(separator: " ").joined(separator: " ")`: runs of U+0020 made one, none at the ends.
    /// ASCII text is split on its bytes (no Character can join a space with its neighbour there).
    static func collapsingSpaces(_ text: String) -> String {
        if let ascii = collapsedASCII(text, separator: { $0 == 0x20 }) { return ascii }
        return text.split(separator: " ").joined(separator: " ")
    }

    var documentTitle: String {
        guard let title = root.firstElement("title") else { return "" }
        let text = title.textContent
        // ASCII: the same split on bytes, without Character properties.
        if let ascii = Self.collapsedASCII(text, separator: { $0 == 0x20 || ($0 >= 0x09 && $0 <= 0x0D) }) { return ascii }
        return text.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }

    /// `text.utf8.split(whereSeparator:)` joined by single spaces, for ASCII text (nil otherwise):
    /// one pass over the bytes, and the text itself when it is already in that form (most
    /// titles), where splitting into Substrings and joining them cost ~30k instructions a title.
    static func collapsedASCII(_ text: String, separator isSeparator: (UInt8) -> Bool) -> String? {
        TextScan.withBytes(text) { bytes -> String? in
            var unchanged = true
            var afterSeparator = true  // a separator first is not the collapsed form
            for byte in bytes {
                if byte >= 0x80 { return nil }
                if isSeparator(byte) {
                    if afterSeparator || byte != 0x20 { unchanged = false }
                    afterSeparator = true
                } else {
                    afterSeparator = false
                }
            }
            if unchanged && !(afterSeparator && !bytes.isEmpty) { return text }
            return String(unsafeUninitializedCapacity: bytes.count) { out in
                var count = 0
                var pendingSpace = false
                for byte in bytes {
                    if isSeparator(byte) {
                        pendingSpace = count > 0
                        continue
                    }
                    if pendingSpace { out[count] = 0x20; count += 1; pendingSpace = false }
                    out[count] = byte
                    count += 1
                }
                return count
            }
        }
    }

    func getArticleTitle() -> String {
        let origTitle = documentTitle
        var curTitle = origTitle
        var hadHierarchicalSeparators = false
        // Positions are worked out on an array of scalars; pieces are cut from the title's own
        // storage (rebuilding them scalar by scalar cost more than the rest of this function).
        let scalars = origTitle.unicodeScalars
        let characters = Array(scalars)
        let positions = Array(scalars.indices) + [scalars.endIndex]
        func piece(_ range: Range<Int>) -> String { String(scalars[positions[range.lowerBound]..<positions[range.upperBound]]) }

        if Self.hasSpacedSeparator(characters, Self.isTitleSeparator) {
            hadHierarchicalSeparators = Self.hasSpacedSeparator(characters, Self.isHierarchicalSeparator)
            // origTitle.replace(/(.*)[\|\-\\\/>»] .*/gi, "$1"): cut at the last "separator + space".
            if let cut = (0..<max(characters.count - 1, 0)).last(where: {
                Self.isTitleSeparator(characters[$0]) && characters[$0 + 1] == " "
            }) {
                curTitle = piece(0..<cut)
            }
            if Self.wordCount(curTitle) < 3, let first = characters.firstIndex(where: Self.isTitleSeparator) {
                curTitle = piece((first + 1)..<characters.count)
            }
        } else if TextScan.contains(curTitle, ": ") {
            let trimmed = TextScan.trimmingWhitespace(curTitle)
            let match = root.elements(Self.titleHeadingTags).contains {
                TextScan.trimmingWhitespace($0.textContent) == trimmed
            }
            if !match, let lastColon = characters.lastIndex(of: ":"), let firstColon = characters.firstIndex(of: ":") {
                curTitle = piece((lastColon + 1)..<characters.count)
                if Self.wordCount(curTitle) < 3 {
                    curTitle = piece((firstColon + 1)..<characters.count)
                } else if Self.wordCount(scalars: characters[..<firstColon]) > 5 {
                    curTitle = origTitle
                }
            }
        } else if curTitle.utf16.count > 150 || curTitle.utf16.count < 15 {  // JavaScript's length
            let headings = root.elements("h1")
            if headings.count == 1 { curTitle = headings[0].innerText }
        }

        curTitle = Self.collapsingSpaces(TextScan.trimmingWhitespace(curTitle))
        let curWords = Self.wordCount(curTitle)
        if curWords <= 4 && (!hadHierarchicalSeparators
            || curWords != Self.wordCount(scalars: characters.lazy.filter { !Self.isTitleSeparator($0) }) - 1) {
            curTitle = origTitle
        }
        return curTitle
    }

    func checkByline(_ node: DNode, _ matchBytes: [UInt8]) -> Bool {
        if articleByline != nil || metadata.byline != nil { return false }
        let rel = node.attribute("rel")
        let itemprop = node.attribute("itemprop")
        guard rel == "author" || (itemprop.map { TextScan.contains($0, "author") } ?? false) || Regexps.byline.matches(matchBytes) else {
            return false
        }
        let text = TextScan.trimmingWhitespace(node.textContent)
        guard !text.isEmpty, text.utf16.count < 100 else { return false }
        articleByline = text
        return true
    }

    func headerDuplicatesTitle(_ node: DNode) -> Bool {
        guard node.tag == "h1" || node.tag == "h2" else { return false }
        let heading = TextScan.trimmingWhitespace(node.textContent)
        return TextSimilarity.similarity(articleTitle, heading) > 0.75
    }
}

enum TextCleaning {
    /// Removes control and bidi characters, collapses whitespace, trims. On UTF-8 bytes: appending
    /// scalar by scalar to a String was ~3% of an extraction's CPU (it runs on every block).
    static func clean(_ text: String) -> String {
        // Most blocks are clean already (the serializer collapses their spaces): a read-only scan
        // answers those without writing a copy and comparing it with the original.
        if TextScan.withBytes(text, isClean) { return text }
        return TextScan.transform(text) { bytes, out in
            var pendingSpace = false
            TextScan.forEachScalar(bytes) { value, range in
                if TextMeter.isJSWhitespace(value) {
                    if !out.isEmpty { pendingSpace = true }
                    return
                }
                if isUnsafe(value) { return }
                if pendingSpace { out.append(0x20); pendingSpace = false }
                TextScan.appendScalar(bytes, range, to: &out)
            }
        }
    }

    /// What `clean` would return unchanged: no unsafe scalar, no whitespace but single ASCII
    /// spaces between other characters.
    static func isClean(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        var previousIsSpace = true  // a space at the start is not clean
        while index < bytes.count {
            let byte = bytes[index]
            if byte < 0x80 {
                if byte == 0x20 {
                    if previousIsSpace { return false }
                    previousIsSpace = true
                } else {
                    if byte < 0x20 || byte == 0x7F { return false }  // controls and ASCII whitespace
                    previousIsSpace = false
                }
                index += 1
                continue
            }
            let (value, next) = TextScan.scalar(at: index, in: bytes)
            if TextMeter.isJSWhitespace(value) || isUnsafe(value) { return false }
            previousIsSpace = false
            index = next
        }
        return !previousIsSpace || bytes.isEmpty
    }

    static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool { isUnsafe(scalar.value) }

    /// Any `HiddenCharacter` (controls, line separators, direction controls, invisible ones).
    static func isUnsafe(_ value: UInt32) -> Bool { HiddenCharacter.kind(value) != nil }
}
