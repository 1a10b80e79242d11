import Foundation
import PulseModel
import OpenGraph

/// `_getArticleTitle`, `_checkByline`, `_headerDuplicatesTitle` and output text cleanup.
extension Extractor {
    static let titleSeparators: Set<Character> = ["|", "-", "\\", "/", ">", "»"]
    static let hierarchicalSeparators: Set<Character> = ["\\", "/", ">", "»"]

    /// `str.split(/\s+/).length`, including the empty pieces JavaScript keeps at the ends.
    static func wordCount(_ text: String) -> Int {
        var count = 1
        var inSpace = false
        for character in text {
            if character.isWhitespace {
                if !inSpace { count += 1; inSpace = true }
            } else {
                inSpace = false
            }
        }
        return count
    }

    /// Whether `text` has " X " with X in `separators`.
    static func hasSpacedSeparator(_ text: String, _ separators: Set<Character>) -> Bool {
        let characters = Array(text)
        guard characters.count >= 3 else { return false }
        for index in 1..<(characters.count - 1) where separators.contains(characters[index]) {
            if characters[index - 1] == " " && characters[index + 1] == " " { return true }
        }
        return false
    }

    var documentTitle: String {
        guard let title = root.firstElement("title") else { return "" }
        return title.textContent.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }

    func getArticleTitle() -> String {
        let origTitle = documentTitle
        var curTitle = origTitle
        var hadHierarchicalSeparators = false
        let characters = Array(origTitle)

        if Self.hasSpacedSeparator(curTitle, Self.titleSeparators) {
            hadHierarchicalSeparators = Self.hasSpacedSeparator(curTitle, Self.hierarchicalSeparators)
            // origTitle.replace(/(.*)[\|\-\\\/>»] .*/gi, "$1"): cut at the last "separator + space".
            if let cut = (0..<max(characters.count - 1, 0)).last(where: {
                Self.titleSeparators.contains(characters[$0]) && characters[$0 + 1] == " "
            }) {
                curTitle = String(characters[..<cut])
            }
            if Self.wordCount(curTitle) < 3,
               let first = characters.firstIndex(where: { Self.titleSeparators.contains($0) }) {
                curTitle = String(characters[(first + 1)...])
            }
        } else if TextScan.contains(curTitle, ": ") {
            let trimmed = TextScan.trimmingWhitespace(curTitle)
            let match = root.elements(["h1", "h2"]).contains {
                TextScan.trimmingWhitespace($0.textContent) == trimmed
            }
            if !match, let lastColon = characters.lastIndex(of: ":"), let firstColon = characters.firstIndex(of: ":") {
                curTitle = String(characters[(lastColon + 1)...])
                if Self.wordCount(curTitle) < 3 {
                    curTitle = String(characters[(firstColon + 1)...])
                } else if Self.wordCount(String(characters[..<firstColon])) > 5 {
                    curTitle = origTitle
                }
            }
        } else if curTitle.count > 150 || curTitle.count < 15 {
            let headings = root.elements("h1")
            if headings.count == 1 { curTitle = headings[0].innerText }
        }

        curTitle = TextScan.trimmingWhitespace(curTitle)
            .split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        let curWords = Self.wordCount(curTitle)
        let strippedOriginal = String(origTitle.filter { !Self.titleSeparators.contains($0) })
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
                if isJSWhitespace(value) {
                    if !out.isEmpty { pendingSpace = true }
                    return
                }
                if isUnsafe(value) { return }
                if pendingSpace { out.append(0x20); pendingSpace = false }
                out.append(contentsOf: bytes[range])
            }
        }
    }

    static func isJSWhitespace(_ value: UInt32) -> Bool {
        value < 0x80 ? value == 0x20 || (value >= 0x09 && value <= 0x0D) : value == 0xA0 || TextMeter.isWideSpace(value)
    }

    static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool { isUnsafe(scalar.value) }

    static func isUnsafe(_ value: UInt32) -> Bool {
        value < 0x20 || (0x7F...0x9F).contains(value) || value == 0x061C || value == 0x200E || value == 0x200F
            || (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value) || value == 0xFEFF
    }
}
