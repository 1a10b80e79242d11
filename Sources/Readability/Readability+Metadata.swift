import Foundation
import PulseModel
import OpenGraph

/// `_getArticleTitle`, `_checkByline`, `_headerDuplicatesTitle` and output text cleanup.
extension Extractor {
    // On Unicode scalars, as Readability.js works on code units: Character-by-Character (grapheme
    // breaking, Unicode property lookups) was ~3% of an extraction's CPU on these few lines.
    static let titleSeparators: Set<Unicode.Scalar> = ["|", "-", "\\", "/", ">", "»"]
    static let hierarchicalSeparators: Set<Unicode.Scalar> = ["\\", "/", ">", "»"]

    /// `str.split(/\s+/).length`, including the empty pieces JavaScript keeps at the ends.
    static func wordCount<S: StringProtocol>(_ text: S) -> Int {
        var count = 1
        var inSpace = false
        for scalar in text.unicodeScalars {
            if scalar.isJSWhitespace {
                if !inSpace { count += 1; inSpace = true }
            } else {
                inSpace = false
            }
        }
        return count
    }

    /// Whether `text` has " X " with X in `separators`.
    static func hasSpacedSeparator(_ scalars: [Unicode.Scalar], _ separators: Set<Unicode.Scalar>) -> Bool {
        guard scalars.count >= 3 else { return false }
        for index in 1..<(scalars.count - 1) where separators.contains(scalars[index]) {
            if scalars[index - 1] == " " && scalars[index + 1] == " " { return true }
        }
        return false
    }

    static func string(_ scalars: ArraySlice<Unicode.Scalar>) -> String {
        String(String.UnicodeScalarView(scalars))
    }

    var documentTitle: String {
        guard let title = root.firstElement("title") else { return "" }
        let text = title.textContent
        if text.utf8.allSatisfy({ $0 < 0x80 }) {  // ASCII: the same split on bytes, without Character properties
            return text.utf8.split(whereSeparator: { $0 == 0x20 || ($0 >= 0x09 && $0 <= 0x0D) })
                .map { Substring($0) }.joined(separator: " ")
        }
        return text.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }

    func getArticleTitle() -> String {
        let origTitle = documentTitle
        var curTitle = origTitle
        var hadHierarchicalSeparators = false
        let characters = Array(origTitle.unicodeScalars)

        if Self.hasSpacedSeparator(characters, Self.titleSeparators) {
            hadHierarchicalSeparators = Self.hasSpacedSeparator(characters, Self.hierarchicalSeparators)
            // origTitle.replace(/(.*)[\|\-\\\/>»] .*/gi, "$1"): cut at the last "separator + space".
            if let cut = (0..<max(characters.count - 1, 0)).last(where: {
                Self.titleSeparators.contains(characters[$0]) && characters[$0 + 1] == " "
            }) {
                curTitle = Self.string(characters[..<cut])
            }
            if Self.wordCount(curTitle) < 3,
               let first = characters.firstIndex(where: { Self.titleSeparators.contains($0) }) {
                curTitle = Self.string(characters[(first + 1)...])
            }
        } else if TextScan.contains(curTitle, ": ") {
            let trimmed = TextScan.trimmingWhitespace(curTitle)
            let match = root.elements(["h1", "h2"]).contains {
                TextScan.trimmingWhitespace($0.textContent) == trimmed
            }
            if !match, let lastColon = characters.lastIndex(of: ":"), let firstColon = characters.firstIndex(of: ":") {
                curTitle = Self.string(characters[(lastColon + 1)...])
                if Self.wordCount(curTitle) < 3 {
                    curTitle = Self.string(characters[(firstColon + 1)...])
                } else if Self.wordCount(Self.string(characters[..<firstColon])) > 5 {
                    curTitle = origTitle
                }
            }
        } else if curTitle.utf16.count > 150 || curTitle.utf16.count < 15 {  // JavaScript's length
            let headings = root.elements("h1")
            if headings.count == 1 { curTitle = headings[0].innerText }
        }

        curTitle = TextScan.trimmingWhitespace(curTitle)
            .split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        let curWords = Self.wordCount(curTitle)
        let strippedOriginal = String(String.UnicodeScalarView(origTitle.unicodeScalars.filter { !Self.titleSeparators.contains($0) }))
        if curWords <= 4 && (!hadHierarchicalSeparators || curWords != Self.wordCount(strippedOriginal) - 1) {
            curTitle = origTitle
        }
        return curTitle
    }

    func checkByline(_ node: DNode, _ matchBytes: [UInt8]) -> Bool {
        if articleByline != nil || metadata.byline != nil { return false }
        let rel = node.attribute("rel")
        let itemprop = node.attribute("itemprop")
        guard rel == "author" || (itemprop?.contains("author") ?? false) || Regexps.byline.matches(matchBytes) else {
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
        TextScan.transform(text) { bytes, out in
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

    static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool { isUnsafe(scalar.value) }

    static func isUnsafe(_ value: UInt32) -> Bool {
        value < 0x20 || (0x7F...0x9F).contains(value) || value == 0x061C || value == 0x200E || value == 0x200F
            || (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value) || value == 0xFEFF
    }
}
