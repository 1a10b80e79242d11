import HTMLDocument
import OpenGraph
import PulseModel
import TextSupport

/// Client-rendered pages: the markup is a shell (menu, an empty application root, a cookie notice,
/// the footer) and the article arrives by script. Readability then keeps the longest text there
/// is, the footer's legal notice, and that was stored as the article. Many publishers also put
/// the whole text in the page's JSON-LD (`articleBody`, for search engines); when what the markup
/// gave is not that article, the publisher's own text is used instead.
///
/// "Not that article" is judged by shared words, both ways: a page whose markup holds part of the
/// text (a paywalled page's first paragraphs) or more than it (a live page whose `articleBody` is
/// only the introduction) keeps what its markup shows. Only an extraction sharing little with
/// `articleBody` either way, or none at all, is replaced.
extension Extractor {
    /// Shorter bodies are summaries or teasers, not articles.
    static let structuredBodyMinimumWords = 80
    /// A shorter body than that replaces only an extraction it outweighs this many times (in
    /// counted words), and never goes below `shortStructuredBodyMinimumWords`.
    static let shortBodyLead = 3
    static let shortStructuredBodyMinimumWords = 25
    /// Longer ones are not an article's text; the page limit (5 MB) bounds them anyway.
    static let structuredBodyMaximumBytes = 1_000_000
    /// Below this share of common words (of either side) the two are different texts.
    static let sameTextShare = 0.5
    /// Words shorter than this (UTF-8 bytes) are mostly function words any two texts share.
    static let comparedWordMinimumBytes = 4

    /// The `articleBody` as a tree to serialize, when it should replace `extracted`. Plain text is
    /// compared before it is parsed: most pages that carry it need it not.
    func structuredBody(insteadOf extracted: String?) -> DNode? {
        guard let raw = metadata.articleBody, raw.utf8.count <= Self.structuredBodyMaximumBytes else { return nil }
        let isMarkup = Self.looksLikeMarkup(raw)
        var body: DNode?
        if isMarkup {
            body = parsedBody(raw)
        }
        guard let words = isMarkup ? body.map({ Self.wordCounts($0.textContent) }) : Self.wordCounts(raw),
              Self.isDifferentArticle(words, from: extracted) else { return nil }
        return body ?? parsedBody(Self.paragraphMarkup(plainText: raw))
    }

    /// Whether `words` (the structured body's) make an article that `extracted` is not.
    static func isDifferentArticle(_ words: [Substring: Int], from extracted: String?) -> Bool {
        let total = words.values.reduce(0, +)
        guard total >= shortStructuredBodyMinimumWords else { return false }
        guard let extracted, !extracted.isEmpty else { return total >= structuredBodyMinimumWords }
        let extractedWords = wordCounts(extracted)
        let extractedTotal = extractedWords.values.reduce(0, +)
        // A short news item (a hundred words, a third of them counted) beats a menu's few words:
        // below the usual minimum only over an extraction it outweighs `shortBodyLead` times.
        guard total >= structuredBodyMinimumWords || extractedTotal * Self.shortBodyLead <= total else { return false }
        let shared = extractedWords.reduce(0) { $0 + min($1.value, words[$1.key] ?? 0) }
        return Double(shared) < sameTextShare * Double(extractedTotal) && Double(shared) < sameTextShare * Double(total)
    }

    private func parsedBody(_ markup: String) -> DNode? {
        var limits = HTMLParseLimits()
        limits.maxBytes = Self.structuredBodyMaximumBytes * 5   // escaping `<` can grow the text
        guard let parsed = try? HTMLDocument.parse(html: markup, limits: limits) else { return nil }
        return Self.bodyElement(of: arena.build(from: parsed))
    }

    /// What follows `<` in `<p>`, `<p `, `<br`, `</p>` and `<div`.
    private static let markupMarkers: [[UInt8]] = ["p>", "p ", "br", "/p>", "div"].map { Array($0.utf8) }

    /// Paragraph tags or line breaks in the first 4 KB: some CMSs put the body's HTML in
    /// `articleBody`. Read on the bytes: most bodies hold no `<` at all, and lower-casing the text
    /// then searching it with Foundation was a third of this comparison's time.
    static func looksLikeMarkup(_ text: String) -> Bool {
        var bytes = text.utf8.prefix(4096).makeIterator()
        var afterBracket: [UInt8] = []
        var inTag = false
        while let byte = bytes.next() {
            if byte == UInt8(ascii: "<") {
                afterBracket.removeAll(keepingCapacity: true)
                inTag = true
                continue
            }
            guard inTag else { continue }
            // ASCII letters lower-cased; the markers are at most three bytes long.
            afterBracket.append(TextScan.lowercasedASCII(byte))
            if markupMarkers.contains(where: { $0 == afterBracket }) { return true }
            if afterBracket.count == 3 { inTag = false }
        }
        return false
    }

    /// Plain text as paragraphs, one per line (empty lines dropped). Only `<` is escaped: JSON-LD
    /// text is often entity-encoded (`&amp;`, `&#8217;`), and the parse decodes those as a browser
    /// would. Written on the bytes: splitting by Character and `replacing` cost 1.2M instructions
    /// for one body, more than parsing the markup it made. The line breaks are `Character.isNewline`'s
    /// (LF, VT, FF, CR, NEL, LS, PS), each of which is a grapheme of its own (or CR LF together).
    static func paragraphMarkup(plainText text: String) -> String {
        TextScan.transform(text) { bytes, out in
            out.reserveCapacity(bytes.count + bytes.count / 8 + 16)
            var inLine = false
            TextScan.forEachScalar(bytes) { value, range in
                switch value {
                case 0x0A...0x0D, 0x85, 0x2028, 0x2029:
                    if inLine { out.append(contentsOf: "</p>".utf8) }
                    inLine = false
                    return
                default:
                    break
                }
                if !inLine { out.append(contentsOf: "<p>".utf8) }
                inLine = true
                if value == 0x3C { out.append(contentsOf: "&lt;".utf8) } else { TextScan.appendScalar(bytes, range, to: &out) }
            }
            if inLine { out.append(contentsOf: "</p>".utf8) }
        }
    }

    /// Lower-case words (letters and digits, as `TextKey` reads them) of at least
    /// `comparedWordMinimumBytes`, counted. `TextKey` works on the bytes; the Character-based
    /// tokens of the title comparisons were half of this comparison's time on non-ASCII text.
    static func wordCounts(_ text: String) -> [Substring: Int] {
        var counts: [Substring: Int] = [:]
        let key = TextKey.words(text)
        counts.reserveCapacity(key.utf8.count / 8)  // about one distinct word per 8 bytes: no regrowth
        // Split on the bytes: the key's separators are single spaces, and splitting the String
        // by Character was two thirds of this function.
        for word in key.utf8.split(separator: 0x20) where word.count >= comparedWordMinimumBytes {
            counts[Substring(word), default: 0] += 1
        }
        return counts
    }
}
