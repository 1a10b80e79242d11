import PulseModel
import HTMLDocument
import TextSupport

/// Reads `<script type="application/ld+json">` blocks (capped in size) into `JSONLDObject`s.
public enum JSONLD {
    static let maxScriptBytes = 1_000_000
    static let maxObjects = 500
    /// Real JSON-LD nests a dozen levels and holds a few hundred arrays and objects. The limits
    /// bound the reading's cost and its recursion. With `JSONDecoder` (which read these scripts
    /// before `JSONLDReader`) every wrong guess at a value's type threw an error copying the
    /// value's whole coding path, and a megabyte of 500-level arrays took minutes.
    static let maxNesting = 32
    static let maxContainers = 10_000

    /// Every JSON object found in the document's JSON-LD, flattened: top-level objects,
    /// array members and `@graph` members, in document order.
    public static func objects(in document: HTMLDocument) -> [JSONLDObject] {
        var result: [JSONLDObject] = []
        for script in document.elements(named: "script") {
            guard let type = document.attribute("type", of: script),
                  TextScan.trimmingWhitespace(type).lowercased() == "application/ld+json" else { continue }
            var text = document.textContent(of: script)
            guard text.utf8.count <= maxScriptBytes else { continue }
            text = stripCDATA(text)
            guard TextScan.withBytes(text, withinShapeLimits) else { continue }
            guard let parsed = TextScan.withBytes(text, JSONLDReader.item) else { continue }
            flatten(parsed, into: &result)
            if result.count >= maxObjects { break }
        }
        return result
    }

    /// Whether JSON text stays within `maxNesting` and `maxContainers`, read in one pass over its
    /// bytes before any reading (string contents, escapes included, are skipped). Strings end where
    /// `JSONLDReader` (and `JSONDecoder`'s scanner) end them: `\u` takes the next four bytes,
    /// whatever they are, so `"\u000\"` is a whole string. Were the two to disagree, structure
    /// this check took for string content could nest the reader without bound. Text that is not
    /// JSON passes and is refused by the reader.
    static func withinShapeLimits(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var depth = 0
        var containers = 0
        var inString = false
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if inString {
                if byte == 0x5C {
                    index += index < bytes.count && bytes[index] == 0x75 ? 5 : 1
                } else if byte == 0x22 {
                    inString = false
                }
                continue
            }
            switch byte {
            case 0x22:
                inString = true
            case 0x5B, 0x7B:
                depth += 1
                containers += 1
                if depth > maxNesting || containers > maxContainers { return false }
            case 0x5D, 0x7D:
                depth -= 1
            default:
                break
            }
        }
        return true
    }

    static func stripCDATA(_ text: String) -> String {
        var trimmed = TextScan.trimmingWhitespace(text)
        if trimmed.hasPrefix("<![CDATA[") { trimmed.removeFirst(9) }
        if trimmed.hasSuffix("]]>") { trimmed.removeLast(3) }
        return trimmed
    }

    private static func flatten(_ value: JSONLDItem, into result: inout [JSONLDObject]) {
        var pending: [JSONLDItem] = [value]
        var index = 0
        while index < pending.count, result.count < maxObjects {
            let item = pending[index]
            index += 1
            switch item {
            case .array(let members):
                pending.append(contentsOf: members.prefix(maxObjects))
            case .object(let object, let graph):
                result.append(object)
                pending.append(contentsOf: graph.prefix(maxObjects))
            case .other:
                break
            }
        }
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
}

/// One JSON-LD object, reduced to the members the metadata and image readers use. A member of
/// another JSON type than the one read (a `name` that is an object, say) counts as absent, as
/// `as? String` on the plain value did.
///
/// Read by the keys it needs (`JSONLDReader`): a member not asked for is never turned into a
/// value. Building every member as `Any` first (what `JSONSerialization` gave) was about 200,000
/// instructions a script, 4% of a small page's extraction.
public struct JSONLDObject: Sendable, Equatable {
    /// `@type`: a string, or the strings of an array.
    public var types: [String] = []
    public var name: String?
    public var headline: String?
    public var description: String?
    public var datePublished: String?
    public var articleBody: String?
    /// `author`: an object's string `name`, or the string `name`s of an array's objects.
    public var authorNames: [String] = []
    /// `publisher.name` when `publisher` is an object.
    public var publisherName: String?
    /// The image candidates in the order they are tried: `image`, `primaryImageOfPage`, then
    /// `thumbnailUrl`; each a string, an object's `url`, `contentUrl` and `@id`, or an array of
    /// those (its first 20 members, arrays within it included).
    public var images: [String] = []

    public var isArticle: Bool { types.contains(where: JSONLD.isArticleType) }

    public init() {}
}

/// A JSON value as JSON-LD's flattening sees it: an object (with its `@graph` members), an
/// array, or anything else. Read by `JSONLDReader`.
enum JSONLDItem {
    case object(JSONLDObject, graph: [JSONLDItem])
    case array([JSONLDItem])
    case other

    /// An image array's members read (arrays within it included).
    static let imageArrayLimit = 20
}
