import FoundationEssentials
import Testing
import HTMLDocument
@testable import OpenGraph

/// `JSONLDObject` is decoded by the keys it needs. Its oracle is the reading it replaced: every
/// JSON value built as `Any` (`String`, `Double`, `Bool`, `[Any]`, `[String: Any]`), flattened,
/// and read with `as?` casts. Both run over hand-written shapes and over random documents
/// made of the members the readers look at, with every JSON type in every place.
@Suite struct JSONLDOracleTests {
    @Test func handWrittenShapesReadAsThePlainValuesDid() throws {
        let shapes = [
            #"{"@type":"NewsArticle","headline":"H","name":"N","author":{"name":" A "},"publisher":{"name":"P"}}"#,
            #"{"@type":["WebPage","NewsArticle",3],"author":[{"name":"A"},"B",{"name":7},{"name":"C"}]}"#,
            #"{"@type":"NewsArticle","image":[["https://x.test/a.jpg",{"url":"u","contentUrl":"c","@id":"i"}],5]}"#,
            #"{"@graph":[{"@type":"Organization","logo":"l"},[{"@type":"Article","thumbnailUrl":"t"}],{"@graph":{}}]}"#,
            #"[{"@type":"Thing"},[[{"name":{"x":1}}]],"text",null,true,1.5]"#,
            #"{"name":null,"headline":["H"],"author":"plain","publisher":["P"],"image":{"url":3}}"#,
            #""just a string""#, "12", "null", "[]", "{}",
        ]
        for shape in shapes {
            #expect(try JSONLDOracle.read(shape) == objects(shape), "\(shape)")
        }
    }

    @Test func randomDocumentsReadAsThePlainValuesDid() throws {
        var generator = SystemRandomNumberGenerator()  // a failure prints its document
        for round in 0..<400 {
            let json = RandomJSONLD.value(depth: 0, using: &generator)
            #expect(try JSONLDOracle.read(json) == objects(json), "round \(round): \(json)")
        }
    }

    private func objects(_ json: String) throws -> [JSONLDObject] {
        let html = "<html><head><script type=\"application/ld+json\">\(json)</script></head><body><p>x</p></body></html>"
        return JSONLD.objects(in: try HTMLDocument.parse(html: html))
    }
}

/// The reading before `JSONLDObject`: plain values, flattened, then cast member by member.
private enum JSONLDOracle {
    static func read(_ json: String) throws -> [JSONLDObject] {
        guard let parsed = try? JSONDecoder().decode(PlainJSON.self, from: Data(json.utf8)) else { return [] }
        var result: [[String: Any]] = []
        var pending: [Any] = [parsed.value]
        var index = 0
        while index < pending.count, result.count < JSONLD.maxObjects {
            let item = pending[index]
            index += 1
            if let array = item as? [Any] {
                pending.append(contentsOf: array.prefix(JSONLD.maxObjects))
            } else if let object = item as? [String: Any] {
                result.append(object)
                if let graph = object["@graph"] as? [Any] { pending.append(contentsOf: graph.prefix(JSONLD.maxObjects)) }
            }
        }
        return result.map(object)
    }

    static func object(_ plain: [String: Any]) -> JSONLDObject {
        var object = JSONLDObject()
        if let type = plain["@type"] as? String { object.types = [type] }
        else if let types = plain["@type"] as? [Any] { object.types = types.compactMap { $0 as? String } }
        object.name = plain["name"] as? String
        object.headline = plain["headline"] as? String
        object.description = plain["description"] as? String
        object.datePublished = plain["datePublished"] as? String
        object.articleBody = plain["articleBody"] as? String
        if let author = plain["author"] as? [String: Any] {
            if let name = author["name"] as? String { object.authorNames = [name] }
        } else if let authors = plain["author"] as? [Any] {
            object.authorNames = authors.compactMap { ($0 as? [String: Any])?["name"] as? String }
        }
        object.publisherName = (plain["publisher"] as? [String: Any])?["name"] as? String
        for key in ["image", "primaryImageOfPage", "thumbnailUrl"] {
            if let value = plain[key] { object.images += imageStrings(value) }
        }
        return object
    }

    static func imageStrings(_ value: Any) -> [String] {
        if let string = value as? String { return [string] }
        if let array = value as? [Any] { return array.prefix(20).flatMap(imageStrings) }
        if let object = value as? [String: Any] { return ["url", "contentUrl", "@id"].compactMap { object[$0] as? String } }
        return []
    }

    /// Any JSON value as a plain value, as `JSONSerialization` gave it.
    struct PlainJSON: Decodable {
        let value: Any

        private struct Key: CodingKey {
            let stringValue: String
            init(stringValue: String) { self.stringValue = stringValue }
            var intValue: Int? { nil }
            init?(intValue: Int) { nil }
        }

        init(from decoder: any Decoder) throws {
            let single = try decoder.singleValueContainer()
            if let string = try? single.decode(String.self) {
                value = string
            } else if let object = try? decoder.container(keyedBy: Key.self) {
                var members: [String: Any] = [:]
                for key in object.allKeys { members[key.stringValue] = try object.decode(PlainJSON.self, forKey: key).value }
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
}

/// Random JSON made of the members JSON-LD's readers look at, each holding any JSON type.
enum RandomJSONLD {
    static let keys = ["@type", "@graph", "name", "headline", "description", "datePublished", "articleBody", "author",
                       "publisher", "image", "primaryImageOfPage", "thumbnailUrl", "url", "contentUrl", "@id", "other"]
    static let strings = ["NewsArticle", "WebPage", "Article", "https://x.test/a.jpg", "  spaced  ", "é", ""]

    static func value(depth: Int, using generator: inout SystemRandomNumberGenerator) -> String {
        let kinds = depth >= 4 ? 4 : 7
        switch Int.random(in: 0..<kinds, using: &generator) {
        case 0: return "\"\(strings.randomElement(using: &generator)!)\""
        case 1: return String(Int.random(in: -5...5, using: &generator))
        case 2: return Bool.random(using: &generator) ? "true" : "false"
        case 3: return "null"
        case 4, 5:
            let count = Int.random(in: 0...5, using: &generator)
            let members = (0..<count).map { _ in
                "\"\(keys.randomElement(using: &generator)!)\":\(value(depth: depth + 1, using: &generator))"
            }
            return "{" + members.joined(separator: ",") + "}"
        default:
            let count = Int.random(in: 0...4, using: &generator)
            return "[" + (0..<count).map { _ in value(depth: depth + 1, using: &generator) }.joined(separator: ",") + "]"
        }
    }
}
