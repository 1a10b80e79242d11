import FoundationEssentials
import PulseModel
import HTMLDocument

/// Reads `<script type="application/ld+json">` blocks (capped in size) into plain objects.
public enum JSONLD {
    static let maxScriptBytes = 1_000_000
    static let maxObjects = 500

    /// Every JSON object found in the document's JSON-LD, flattened: top-level objects,
    /// array members and `@graph` members, in document order.
    public static func objects(in document: HTMLDocument) -> [[String: Any]] {
        var result: [[String: Any]] = []
        for script in document.elements(named: "script") {
            guard let type = document.attribute("type", of: script),
                  TextScan.trimmingWhitespace(type).lowercased() == "application/ld+json" else { continue }
            var text = document.textContent(of: script)
            guard text.utf8.count <= maxScriptBytes else { continue }
            text = stripCDATA(text)
            guard let parsed = try? JSONDecoder().decode(PlainJSON.self, from: Data(text.utf8)) else { continue }
            flatten(parsed.value, into: &result)
            if result.count >= maxObjects { break }
        }
        return result
    }

    static func stripCDATA(_ text: String) -> String {
        var trimmed = TextScan.trimmingWhitespace(text)
        if trimmed.hasPrefix("<![CDATA[") { trimmed.removeFirst(9) }
        if trimmed.hasSuffix("]]>") { trimmed.removeLast(3) }
        return trimmed
    }

    private static func flatten(_ value: Any, into result: inout [[String: Any]]) {
        var pending: [Any] = [value]
        var index = 0
        while index < pending.count, result.count < maxObjects {
            let item = pending[index]
            index += 1
            if let array = item as? [Any] {
                pending.append(contentsOf: array.prefix(maxObjects))
            } else if let object = item as? [String: Any] {
                result.append(object)
                if let graph = object["@graph"] as? [Any] { pending.append(contentsOf: graph.prefix(maxObjects)) }
            }
        }
    }

    /// `@type` as a list of strings (it may be a string or an array).
    public static func types(of object: [String: Any]) -> [String] {
        if let type = object["@type"] as? String { return [type] }
        if let types = object["@type"] as? [Any] { return types.compactMap { $0 as? String } }
        return []
    }

    static let middleArticleTypes = [
        "AdvertiserContentArticle", "NewsArticle", "AnalysisNewsArticle", "AskPublicNewsArticle",
        "BackgroundNewsArticle", "OpinionNewsArticle", "ReportageNewsArticle", "ReviewNewsArticle",
        "Report", "SatiricalArticle", "ScholarlyArticle", "MedicalScholarlyArticle",
        "SocialMediaPosting", "BlogPosting", "LiveBlogPosting", "DiscussionForumPosting", "TechArticle",
    ]

    /// Readability.js's `jsonLdArticleTypes` regex, whose alternation anchors only the first
    /// (`^Article`) and last (`APIReference$`) names; the rest match anywhere.
    public static func isArticleType(_ type: String) -> Bool {
        type.hasPrefix("Article") || type.hasSuffix("APIReference") || middleArticleTypes.contains { TextScan.contains(type, $0) }
    }

    public static func isArticle(_ object: [String: Any]) -> Bool {
        types(of: object).contains(where: isArticleType)
    }

    /// Readability.js accepts only a schema.org `@context`.
    public static func hasSchemaContext(_ object: [String: Any]) -> Bool {
        func matches(_ value: String) -> Bool {
            let lower = value.lowercased()
            return ["http://schema.org", "https://schema.org", "http://schema.org/", "https://schema.org/"].contains(lower)
        }
        if let context = object["@context"] as? String { return matches(context) }
        if let contexts = object["@context"] as? [Any] { return contexts.contains { ($0 as? String).map(matches) ?? false } }
        if let context = object["@context"] as? [String: Any], let vocab = context["@vocab"] as? String { return matches(vocab) }
        return false
    }
}

/// Any JSON text as the plain values `JSONSerialization` made of it (`String`, `Double`, `Bool`,
/// `[Any]`, `[String: Any]`; null is `Optional<Any>.none`), through FoundationEssentials'
/// `JSONDecoder`: the service does not link swift-corelibs-foundation, which holds
/// `JSONSerialization` (linking it cost every process start about 1 ms).
struct PlainJSON: Decodable {
    let value: Any

    private struct Key: CodingKey {
        let stringValue: String
        init(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        // Strings first: they are most of JSON-LD's values, and every wrong guess costs a thrown
        // DecodingError (the decoder has no way to ask a value's type).
        let single = try decoder.singleValueContainer()
        if let string = try? single.decode(String.self) {
            value = string
        } else if let object = try? decoder.container(keyedBy: Key.self) {
            let keys = object.allKeys  // built anew on every call
            var members: [String: Any] = [:]
            members.reserveCapacity(keys.count)
            for key in keys { members[key.stringValue] = try object.decode(PlainJSON.self, forKey: key).value }
            value = members
        } else if var array = try? decoder.unkeyedContainer() {
            var items: [Any] = []
            while !array.isAtEnd { items.append(try array.decode(PlainJSON.self).value) }
            value = items
        } else if single.decodeNil() {
            value = Optional<Any>.none as Any
        } else if let bool = try? single.decode(Bool.self) {
            value = bool
        } else {
            value = try single.decode(Double.self)
        }
    }
}
