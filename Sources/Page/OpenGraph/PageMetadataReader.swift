import FoundationEssentials
import PulseModel
import HTMLDocument
import WebText
import TextSupport

/// Readability.js's `_getJSONLD` and `_getArticleMetadata`: meta tags and the first
/// schema.org Article-typed JSON-LD object, JSON-LD winning field by field.
extension OpenGraph {
    /// - Parameter htmlTitle: the cleaned `<title>`, used to choose between JSON-LD `name`
    ///   and `headline` when they differ (as Readability.js does).
    /// - Parameter includeImage: false skips the lead-image search.
    public static func metadata(in document: HTMLDocument, pageURL: String, htmlTitle: String? = nil,
                                includeImage: Bool = true) -> PageMetadata {
        let objects = JSONLD.objects(in: document)
        let jsonLD = jsonLDMetadata(objects, htmlTitle: htmlTitle ?? document.title ?? "")
        let values = metaValues(in: document)
        func first(_ keys: [String]) -> String? {
            for key in keys { if let value = values[key], !value.isEmpty { return value } }
            return nil
        }
        var result = PageMetadata()
        result.title = jsonLD.title ?? first(["dc:title", "dcterm:title", "og:title", "weibo:article:title",
                                              "weibo:webpage:title", "title", "twitter:title", "parsely-title"])
        result.byline = jsonLD.byline ?? first(["dc:creator", "dcterm:creator", "author", "parsely-author",
                                                "article:author"]).flatMap(nonURLByline)
        result.excerpt = jsonLD.excerpt ?? first(["dc:description", "dcterm:description", "og:description",
                                                  "weibo:article:description", "weibo:webpage:description",
                                                  "description", "twitter:description"])
        result.siteName = jsonLD.siteName ?? first(["og:site_name"])
        result.publishedTime = jsonLD.publishedTime ?? first(["article:published_time", "parsely-pub-date"])
        result.articleBody = jsonLD.articleBody
        result.title = result.title.map(HTMLEntities.decode)
        result.byline = result.byline.map(HTMLEntities.decode)
        result.excerpt = result.excerpt.map(HTMLEntities.decode)
        result.siteName = result.siteName.map(HTMLEntities.decode)
        result.publishedTime = result.publishedTime.map(HTMLEntities.decode)
        if includeImage { result.imageURL = imageURL(in: document, pageURL: pageURL, jsonLD: objects) }
        return result
    }

    /// `article:author` is often a profile URL, which is not a byline.
    private static func nonURLByline(_ value: String) -> String? {
        value.hasPrefix("http://") || value.hasPrefix("https://") ? nil : value
    }

    static let propertyPrefixes = ["article", "dc", "dcterm", "og", "twitter"]
    static let propertyNames = ["author", "creator", "description", "published_time", "title", "site_name"]
    static let namePrefixes = ["dc", "dcterm", "og", "twitter", "parsely", "weibo:article", "weibo:webpage"]
    static let nameNames = ["author", "creator", "pub-date", "description", "title", "site_name"]

    /// Meta values keyed the way Readability.js keys them (lower-case, no spaces, dots as colons).
    static func metaValues(in document: HTMLDocument) -> [String: String] {
        var values: [String: String] = [:]
        for meta in document.elements(named: "meta") {
            guard let content = document.attribute("content", of: meta).map(TextScan.trimmingWhitespace),
                  !content.isEmpty else { continue }
            var matched = false
            if let property = document.attribute("property", of: meta) {
                for token in property.lowercased().split(whereSeparator: { $0 == " " }) {
                    // Filtering Characters cost ~6k instructions a tag: only a token with a tab byte
                    // can hold a tab Character.
                    let key = TextScan.containsByte(token, where: { $0 == 0x09 }) ? String(token.filter { $0 != "\t" }) : String(token)
                    let parts = key.split(separator: ":", maxSplits: 1).map(String.init)
                    if parts.count == 2, propertyPrefixes.contains(parts[0]), propertyNames.contains(parts[1]) {
                        values[key] = content
                        matched = true
                    }
                }
            }
            if !matched, let name = document.attribute("name", of: meta) {
                let lowered = name.lowercased()
                // ASCII without whitespace bytes holds no whitespace Character: nothing to filter.
                let kept = TextScan.containsByte(lowered, where: { $0 >= 0x80 || $0 == 0x20 || ($0 >= 0x09 && $0 <= 0x0D) })
                    ? lowered.filter { !$0.isWhitespace } : lowered
                let key = TextScan.containsByte(kept, where: { $0 == 0x2E })
                    ? String(String.UnicodeScalarView(kept.unicodeScalars.map { $0 == "." ? ":" : $0 })) : kept
                if nameNames.contains(key) {
                    values[key] = content
                } else if let separator = key.lastIndex(where: { $0 == ":" || $0 == "-" }) {
                    let prefix = String(key[..<separator])
                    let suffix = String(key[key.index(after: separator)...])
                    if namePrefixes.contains(prefix), nameNames.contains(suffix) { values[key] = content }
                    else if key == "parsely-pub-date" { values[key] = content }
                }
            }
        }
        return values
    }

    struct JSONLDFields {
        var title: String?
        var byline: String?
        var excerpt: String?
        var siteName: String?
        var publishedTime: String?
        var articleBody: String?
    }

    static func jsonLDMetadata(_ objects: [JSONLDObject], htmlTitle: String) -> JSONLDFields {
        var fields = JSONLDFields()
        guard let article = objects.first(where: \.isArticle) else { return fields }
        let name = article.name.map(TextScan.trimmingWhitespace)
        let headline = article.headline.map(TextScan.trimmingWhitespace)
        if let name, let headline, name != headline {
            let nameMatches = TextSimilarity.similarity(name, htmlTitle) > 0.75
            let headlineMatches = TextSimilarity.similarity(headline, htmlTitle) > 0.75
            fields.title = headlineMatches && !nameMatches ? headline : name
        } else {
            fields.title = name ?? headline
        }
        if !article.authorNames.isEmpty {
            fields.byline = article.authorNames.map { TextScan.trimmingWhitespace($0) }.joined(separator: ", ")
        }
        fields.excerpt = article.description.map(TextScan.trimmingWhitespace)
        fields.siteName = article.publisherName.map(TextScan.trimmingWhitespace)
        fields.publishedTime = article.datePublished.map(TextScan.trimmingWhitespace)
        fields.articleBody = article.articleBody
        return fields
    }
}

/// Readability.js's `_textSimilarity`: 1 - (length of B's tokens missing from A / length of B).
public enum TextSimilarity {
    public static func tokens(_ text: String) -> [Substring] {
        let lowered = text.lowercased()
        // ASCII text (most titles and headings) is split on its bytes: the Character properties
        // below cost more than the rest of the comparison. Same tokens either way.
        if lowered.utf8.allSatisfy({ $0 < 0x80 }) {
            return lowered.utf8.split(whereSeparator: { byte in
                !((byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x5F)
            }).map { Substring($0) }
        }
        return lowered.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "_") })
    }

    public static func similarity(_ textA: String, _ textB: String) -> Double {
        if let ascii = asciiSimilarity(textA, textB) { return ascii }
        return generalSimilarity(textA, textB)
    }

    /// `similarity` for two ASCII texts without building a string: a token is a run of
    /// `[A-Za-z0-9_]` compared without case, and every Character is one byte, so the joined
    /// lengths are sums. Lower-casing, splitting and joining were nearly all of its cost (48k
    /// instructions for a headline against a title); it runs for every h1/h2 against the title.
    /// Nil when either text is not ASCII, or when the token lists are long enough that comparing
    /// every pair would cost more than hashing them: both texts come from the page (a title and a
    /// heading of any length), so the pairwise scan is capped and longer texts take the hashed path.
    static func asciiSimilarity(_ textA: String, _ textB: String) -> Double? {
        var textA = textA
        var textB = textB
        return textA.withUTF8 { a in
            textB.withUTF8 { b -> Double? in
                guard let tokensA = asciiTokens(a), let tokensB = asciiTokens(b),
                      tokensA.count * tokensB.count <= maxPairwiseComparisons else { return nil }
                guard !tokensA.isEmpty, !tokensB.isEmpty else { return 0 }
                func same(_ x: Range<Int>, _ y: Range<Int>) -> Bool {
                    guard x.count == y.count else { return false }
                    var i = x.lowerBound
                    var j = y.lowerBound
                    while i < x.upperBound {
                        if a[i] | 0x20 != b[j] | 0x20 { return false }  // letters, digits and `_` fold only A-Z
                        i += 1
                        j += 1
                    }
                    return true
                }
                var totalLength = -1
                var uniqueLength = -1
                for token in tokensB {
                    totalLength += token.count + 1
                    if !tokensA.contains(where: { same($0, token) }) { uniqueLength += token.count + 1 }
                }
                return 1 - Double(max(uniqueLength, 0)) / Double(totalLength)
            }
        }
    }

    /// Token pairs the ASCII path may compare (a headline against a title is ~100).
    static let maxPairwiseComparisons = 4_096

    /// Byte ranges of the `[A-Za-z0-9_]` runs; nil for a non-ASCII text.
    private static func asciiTokens(_ bytes: UnsafeBufferPointer<UInt8>) -> [Range<Int>]? {
        var tokens: [Range<Int>] = []
        var start: Int?
        for index in 0..<bytes.count {
            let byte = bytes[index]
            guard byte < 0x80 else { return nil }
            let folded = byte | 0x20
            let isWord = (folded >= 0x61 && folded <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x5F
            if isWord {
                if start == nil { start = index }
            } else if let first = start {
                tokens.append(first..<index)
                start = nil
            }
        }
        if let first = start { tokens.append(first..<bytes.count) }
        return tokens
    }

    static func generalSimilarity(_ textA: String, _ textB: String) -> Double {
        let tokensA = tokens(textA)
        let tokensB = tokens(textB)
        guard !tokensA.isEmpty, !tokensB.isEmpty else { return 0 }
        let setA = Set(tokensA)
        let uniqueB = tokensB.filter { !setA.contains($0) }
        let totalLength = tokensB.joined(separator: " ").count
        return 1 - Double(uniqueB.joined(separator: " ").count) / Double(totalLength)
    }
}
