import FoundationEssentials
import Testing
import HTMLDocument
@testable import OpenGraph

/// `JSONLDReader` against `JSONDecoder` (with the `Decodable` reading it replaced, below): the same
/// objects from every text, and nothing from every text the decoder refuses. On the decoder's
/// quirks written out, on random JSON-LD, and on random JSON-LD broken by one edit.
@Suite struct JSONLDReaderOracleTests {
    static func viaDecoder(_ json: String) -> [JSONLDObject]? {
        guard let item = try? JSONDecoder().decode(DecoderItem.self, from: Data(json.utf8)) else { return nil }
        return flattened(item.item)
    }

    static func viaReader(_ json: String) -> [JSONLDObject]? {
        guard let item = json.utf8.withContiguousStorageIfAvailable(JSONLDReader.item) ?? nil else { return nil }
        return flattened(item)
    }

    /// `JSONLD.objects`' flattening.
    static func flattened(_ item: JSONLDItem) -> [JSONLDObject] {
        var result: [JSONLDObject] = []
        var pending = [item]
        var index = 0
        while index < pending.count, result.count < JSONLD.maxObjects {
            let next = pending[index]
            index += 1
            switch next {
            case .array(let members): pending.append(contentsOf: members.prefix(JSONLD.maxObjects))
            case .object(let object, let graph):
                result.append(object)
                pending.append(contentsOf: graph.prefix(JSONLD.maxObjects))
            case .other: break
            }
        }
        return result
    }

    /// What the decoder's scanner lets through and what it reads lazily, found by trying it.
    static let quirks = [
        #"{"a": 01, "name": "n"}"#, #"{"a": 1., "name": "n"}"#, #"{"a": -}"#, #"{"a": 1e}"#, #"{"a": +1}"#, #"{"a": .5}"#,
        #"{"a": NaN}"#, #"{"a": -0}"#, #"{"a": 1E+2}"#, #"{"a":1.5.5}"#, #"{"a":-+}"#, #"{"a":1-2}"#, #"{"a":1a}"#,
        #"{"a":-a}"#, #"{"a":0x10}"#, #"{"a":1 2}"#, #"{"a":--1}"#, #"{"a":1.e5}"#, #"{"a":-.5}"#,
        #"{"name": "\x"}"#, #"{"a": "\x", "name": "n"}"#, #"{"name": "\ud800"}"#, #"{"name": "\udc00\ud800"}"#,
        #"{"name": "\u00e9\ud83d\ude00"}"#, #"{"name": "\u12"}"#, #"{"name":"\u12zz"}"#, #"{"a":"\u"}"#,
        #"{"name":"\u00g0"}"#, #"{"name":"\uD83D\u0041"}"#, #"{"name":"\ud83d\ude00x"}"#, #"{"name":"\u0000"}"#,
        #"{"name":"\U0041"}"#, #"{"name":"\/\b\f\n\r\t\"\\"}"#, "{\"name\": \"\u{01}\"}", "{\"name\": \"a\u{7F}b\"}",
        "{\"name\": \"\u{2028}\"}", #"{"name":"a","name":"b"}"#, #"{"n\u0061me":"esc"}"#, #"{"n\x":"k","name":"v"}"#,
        #"{"n\ud800":"k","name":"v"}"#, "{\"n\u{01}\":\"k\",\"name\":\"v\"}", #"{"name":"v",}"#, #"{"name":"v"} x"#,
        #"{"name":"v"}   "#, "\u{FEFF}{\"name\":\"bom\"}", " \u{FEFF}{\"name\":\"bom\"}", "\t\r\n{\"name\":\"v\"}\n",
        #"{"name":"v" /* c */}"#, "{\"name\":\"v\"}\u{00A0}", #"{name:"v"}"#, #"{'name':'v'}"#, #"{"name":"v" "a":1}"#,
        #"{"name":tru}"#, #"{"name":nul}"#, #"{"name":True}"#, #"{"a":tru e}"#, #"{"a":truex}"#, #"{"a":null1}"#,
        #"{"a":[1,]}"#, #"{"a":[,1]}"#, #"{"a":[1,,2]}"#, #"{"a":1,,}"#, #"{,}"#, #"[1,]"#, #"[,]"#, #"[{"name":"x"},]"#,
        #"{"a":1}{"b":2}"#, #"{"a":1}}"#, #"{"a":[}"#, #"{"a" 1}"#, #"{"a":}"#, #"{:1}"#, #"{"a"}"#, "", " ", "[]", "{}",
        #"{"name":"v","a":{"x":1,}, }"#, #"{"@type":["A",],"author":[{"name":"x",},],"image":["u",],}"#,
        #"{"author":{"n\x":1,"name":"A"},"publisher":{"name":"\ud800"},"image":{"url":"u","b\q":2}}"#,
        #"{"@graph":[{"@type":"NewsArticle","headline":"H\u0041"},{"@graph":[{"name":"deep"}]}],"name":"top"}"#,
        #"{"image":[["a",{"url":"b"},["c"]],"d",{"contentUrl":"e","@id":"f"}],"thumbnailUrl":"t"}"#,
    ]

    @Test func decoderQuirks() {
        for json in Self.quirks {
            #expect(Self.viaReader(json) == Self.viaDecoder(json), "\(json.debugDescription)")
        }
    }

    @Test func randomDocuments() {
        var generator = SystemRandomNumberGenerator()  // a failure prints its document
        for _ in 0..<1_000 {
            let json = RandomJSONLD.value(depth: 0, using: &generator)
            #expect(Self.viaReader(json) == Self.viaDecoder(json), "\(json.debugDescription)")
        }
    }

    /// Random JSON-LD with one edit: a piece of syntax or string content inserted, or a byte
    /// removed; about half of them stay JSON the decoder reads.
    @Test func randomDocumentsBrokenByOneEdit() {
        var generator = SystemRandomNumberGenerator()
        let pieces = [",", ",,", " ", "\\x", "\\u12", "\\ud800", "\\udc00", "\\u0041", "\u{01}", "\u{FEFF}", "-", "1e",
                      "tru", "null", "}", "]", "{", "[", "\"", ":", "\\", "0", ".", "+", "é", "\n", "\u{0B}"]
        var readable = 0
        for _ in 0..<3_000 {
            var bytes = Array(RandomJSONLD.value(depth: 0, using: &generator).utf8)
            let at = Int.random(in: 0...bytes.count, using: &generator)
            if Bool.random(using: &generator), at < bytes.count {
                bytes.remove(at: at)
            } else {
                bytes.insert(contentsOf: Array(pieces.randomElement(using: &generator)!.utf8), at: at)
            }
            // Removing a byte can split a UTF-8 sequence; script text is always valid UTF-8.
            guard let json = String(validating: bytes, as: UTF8.self) else { continue }
            let expected = Self.viaDecoder(json)
            if expected != nil { readable += 1 }
            #expect(Self.viaReader(json) == expected, "\(json.debugDescription)")
        }
        #expect(readable > 300 && readable < 2_900)  // both outcomes occur: about 975 readable (sd ~25)
    }
}

/// The reading `JSONLDReader` replaced, kept as its oracle: FoundationEssentials' `JSONDecoder`
/// and this `Decodable` conformance, as `JSONLDItem` had it.
enum DecoderItem: Decodable {
    case object(JSONLDObject, graph: [DecoderItem])
    case array([DecoderItem])
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
            let graph = members.contains(.graph) ? (try? members.decode([DecoderItem].self, forKey: .graph)) : nil
            self = .object(object, graph: graph ?? [])
        } else if let members = try? decoder.singleValueContainer().decode([DecoderItem].self) {
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
            name = (try? decoder.container(keyedBy: Key.self)).flatMap { DecoderItem.string(in: $0, .name) }
        }
    }

    /// An `image`-like member: a URL string, an ImageObject, or an array of either.
    private struct ImageValue: Decodable {
        static let arrayLimit = 20
        let urls: [String]
        init(from decoder: any Decoder) throws {
            if let string = try? decoder.singleValueContainer().decode(String.self) {
                urls = [string]
            } else if let object = try? decoder.container(keyedBy: Key.self) {
                urls = [Key.url, .contentUrl, .id].compactMap { DecoderItem.string(in: object, $0) }
            } else if let array = try? decoder.singleValueContainer().decode([ImageValue].self) {
                urls = array.prefix(Self.arrayLimit).flatMap(\.urls)
            } else {
                urls = []
            }
        }
    }
}

extension DecoderItem {
    var item: JSONLDItem {
        switch self {
        case .object(let object, let graph): .object(object, graph: graph.map(\.item))
        case .array(let members): .array(members.map(\.item))
        case .other: .other
        }
    }
}
