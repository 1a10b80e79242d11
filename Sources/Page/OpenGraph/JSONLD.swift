import FoundationEssentials
import PulseModel
import HTMLDocument
import TextSupport

/// Reads `<script type="application/ld+json">` blocks (capped in size) into `JSONLDObject`s.
public enum JSONLD {
    static let maxScriptBytes = 1_000_000
    static let maxObjects = 500
    /// Real JSON-LD nests a dozen levels and holds a few hundred arrays and objects. The limits
    /// bound the decoder's cost: every wrong guess at a value's type throws an error that copies
    /// the value's whole coding path, and without them a megabyte of 500-level arrays took minutes.
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
            guard TextScan.withBytes(text, withinShapeLimits), let parsed = decode(text) else { continue }
            flatten(parsed, into: &result)
            if result.count >= maxObjects { break }
        }
        return result
    }

    /// The item a script's text holds, or nil when `JSONDecoder` refuses the text. Run only on
    /// text within the shape limits.
    static func decode(_ text: String) -> JSONLDItem? {
        try? JSONDecoder().decode(JSONLDItem.self, from: Data(text.utf8))
    }

    /// Whether JSON text stays within `maxNesting` and `maxContainers`, read in one pass over its
    /// bytes before any decoding (string contents, escapes included, are skipped). Strings end where
    /// `JSONDecoder`'s scanner ends them: `\u` takes the next four bytes, whatever they are, so
    /// `"\u000\"` is a whole string. Were the two to disagree, structure this check took for string
    /// content would reach the decoder unchecked. Text that is not JSON passes and is refused by
    /// the decoder.
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
/// Decoded by the keys it needs (`JSONLDItem`): a member not asked for is never turned into a
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
/// array, or anything else. Decoded with FoundationEssentials' `JSONDecoder` so that no JSON
/// parser of our own is kept; its `Codable` machinery costs about 4% of a small (3-6 KB) page's
/// extraction against the hand-written reader it replaced, nothing measurable on a 150 KB page.
enum JSONLDItem: Decodable {
    case object(JSONLDObject, graph: [JSONLDItem])
    case array([JSONLDItem])
    case other

    private enum Key: String, CodingKey {
        case type = "@type", graph = "@graph", name, headline, description, datePublished, articleBody, author,
             publisher, image, primaryImageOfPage, thumbnailUrl, url, contentUrl, id = "@id"
    }

    // Each kind is tried in turn: the decoder cannot be asked a value's type, and a wrong guess
    // costs a thrown DecodingError, so the likelier kind goes first at every step.
    init(from decoder: any Decoder) throws {
        if let members = try? decoder.container(keyedBy: Key.self) {
            var object = JSONLDObject()
            object.types = Self.strings(in: members, .type)
            object.name = Self.string(in: members, .name)
            object.headline = Self.string(in: members, .headline)
            object.description = Self.string(in: members, .description)
            object.datePublished = Self.string(in: members, .datePublished)
            object.articleBody = Self.string(in: members, .articleBody)
            if members.contains(.author) {
                if let author = try? members.nestedContainer(keyedBy: Key.self, forKey: .author) {
                    if let name = Self.string(in: author, .name) { object.authorNames = [name] }
                } else if let authors = try? members.decode([Named].self, forKey: .author) {
                    object.authorNames = authors.compactMap(\.name)
                }
            }
            if members.contains(.publisher), let publisher = try? members.nestedContainer(keyedBy: Key.self, forKey: .publisher) {
                object.publisherName = Self.string(in: publisher, .name)
            }
            for key in [Key.image, .primaryImageOfPage, .thumbnailUrl] where members.contains(key) {
                if let image = try? members.decode(ImageValue.self, forKey: key) { object.images += image.urls }
            }
            let graph = members.contains(.graph) ? (try? members.decode([JSONLDItem].self, forKey: .graph)) : nil
            self = .object(object, graph: graph ?? [])
        } else if let members = try? decoder.singleValueContainer().decode([JSONLDItem].self) {
            self = .array(members)
        } else {
            self = .other
        }
    }

    private static func string(in members: KeyedDecodingContainer<Key>, _ key: Key) -> String? {
        guard members.contains(key) else { return nil }
        return try? members.decode(String.self, forKey: key)
    }

    /// A string member as one string, or an array member's strings.
    private static func strings(in members: KeyedDecodingContainer<Key>, _ key: Key) -> [String] {
        guard members.contains(key) else { return [] }
        if let string = try? members.decode(String.self, forKey: key) { return [string] }
        return (try? members.decode([LooseString].self, forKey: key))?.compactMap(\.value) ?? []
    }

    /// A member that is a string or not; never fails, so an array of mixed values decodes whole.
    private struct LooseString: Decodable {
        let value: String?
        init(from decoder: any Decoder) throws { value = try? decoder.singleValueContainer().decode(String.self) }
    }

    /// An array member that may be an object with a string `name`.
    private struct Named: Decodable {
        let name: String?
        init(from decoder: any Decoder) throws {
            name = (try? decoder.container(keyedBy: Key.self)).flatMap { JSONLDItem.string(in: $0, .name) }
        }
    }

    /// An `image`-like member: a URL string, an ImageObject's `url`, `contentUrl` and `@id`, or an
    /// array of either (its first 20 members, arrays within it included).
    private struct ImageValue: Decodable {
        static let arrayLimit = 20
        let urls: [String]
        init(from decoder: any Decoder) throws {
            if let string = try? decoder.singleValueContainer().decode(String.self) {
                urls = [string]
            } else if let object = try? decoder.container(keyedBy: Key.self) {
                urls = [Key.url, .contentUrl, .id].compactMap { JSONLDItem.string(in: object, $0) }
            } else if let array = try? decoder.singleValueContainer().decode([ImageValue].self) {
                urls = array.prefix(Self.arrayLimit).flatMap(\.urls)
            } else {
                urls = []
            }
        }
    }
}
