/// JSON-LD script text read into `JSONLDItem`s straight from its bytes. Hand-written because
/// FoundationEssentials' `JSONDecoder`, which read it before, spent about 72,000 instructions a
/// script in `Codable` machinery (a dictionary of every object's keys, a thrown error for every
/// wrong guess at a value's type: the decoder cannot be asked a type), 3% of a small page's
/// extraction; this reads the same members in about a third of that.
///
/// It accepts and refuses what `JSONDecoder` does, quirks included (`JSONLDReaderOracleTests`
/// holds it to the decoder, which stays the tests' oracle), because a script it refuses loses its
/// metadata:
/// - the structure is checked as the decoder's scanner checks it: one trailing comma is allowed in
///   an object or array; a number is a `-` or digit followed by any of `0-9 . e E + -`; `\u` in a
///   string takes the next four bytes whatever they are; a UTF-8 byte-order mark may start the text;
/// - a string's content is checked only when it is read, as the decoder does: an invalid escape, a
///   lone surrogate or a raw control character makes that member absent, not the script;
/// - an object with a key that cannot be read is no object to the readers (the decoder's keyed
///   container fails), and of repeated keys the first counts.
/// Nesting is bounded before this runs (`JSONLD.withinShapeLimits`, which ends strings where this
/// reader does), and again here: past `JSONLD.maxNesting` levels the text is refused, so the
/// recursion stays shallow whatever the text.
struct JSONLDReader {
    /// A parsed value: strings stay byte ranges until read.
    indirect enum Value {
        case object([(key: Range<Int>, value: Value)])
        case array([Value])
        case string(Range<Int>)
        case scalar
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private var depth = 0

    /// The item the text holds, or nil when `JSONDecoder` would refuse the text.
    static func item(in bytes: UnsafeBufferPointer<UInt8>) -> JSONLDItem? {
        var reader = JSONLDReader(bytes: bytes)
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { reader.index = 3 }
        guard let value = reader.value() else { return nil }
        reader.skipSpace()
        guard reader.index == bytes.count else { return nil }
        return reader.item(value)
    }

    private init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    // MARK: Structure

    private mutating func skipSpace() {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 {
            index += 1
        }
    }

    private mutating func value() -> Value? {
        skipSpace()
        guard index < bytes.count else { return nil }
        switch bytes[index] {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            guard depth < JSONLD.maxNesting else { return nil }
            depth += 1
            defer { depth -= 1 }
            return bytes[index] == UInt8(ascii: "{") ? object() : array()
        case UInt8(ascii: "\""): return string().map(Value.string)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            index += 1
            while index < bytes.count, Self.isNumberByte(bytes[index]) { index += 1 }
            return .scalar
        case UInt8(ascii: "t"): return literal("true")
        case UInt8(ascii: "f"): return literal("false")
        case UInt8(ascii: "n"): return literal("null")
        default: return nil
        }
    }

    private static func isNumberByte(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || byte == 0x2E || byte == 0x65 || byte == 0x45 || byte == 0x2B || byte == 0x2D
    }

    private mutating func literal(_ word: StaticString) -> Value? {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { return nil }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { return nil }
        index += count
        return .scalar
    }

    /// The content range of the string starting at `index` (a quote); moves past its end quote.
    private mutating func string() -> Range<Int>? {
        index += 1
        let start = index
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\""):
                index += 1
                return start..<(index - 1)
            case UInt8(ascii: "\\"):
                index += index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "u") ? 6 : 2
            default:
                index += 1
            }
        }
        return nil
    }

    private mutating func object() -> Value? {
        index += 1
        var members: [(key: Range<Int>, value: Value)] = []
        if consume(UInt8(ascii: "}")) { return .object(members) }
        while true {
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\""), let key = string() else { return nil }
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
            index += 1
            guard let value = value() else { return nil }
            members.append((key, value))
            guard let closed = endsContainer(UInt8(ascii: "}")) else { return nil }
            if closed { return .object(members) }
        }
    }

    private mutating func array() -> Value? {
        index += 1
        var elements: [Value] = []
        if consume(UInt8(ascii: "]")) { return .array(elements) }
        while true {
            guard let element = value() else { return nil }
            elements.append(element)
            guard let closed = endsContainer(UInt8(ascii: "]")) else { return nil }
            if closed { return .array(elements) }
        }
    }

    /// After a member or element: true when `closer` ends the container (also after one trailing
    /// comma), false after a comma with more to come, nil when the text is refused.
    private mutating func endsContainer(_ closer: UInt8) -> Bool? {
        skipSpace()
        guard index < bytes.count else { return nil }
        if bytes[index] == closer { index += 1; return true }
        guard bytes[index] == UInt8(ascii: ",") else { return nil }
        index += 1
        return consume(closer)
    }

    /// Skips spaces, then moves past `closer` if it comes next.
    private mutating func consume(_ closer: UInt8) -> Bool {
        skipSpace()
        guard index < bytes.count, bytes[index] == closer else { return false }
        index += 1
        return true
    }

    // MARK: Strings, read when asked for

    /// The string's text, or nil for content the decoder refuses to read.
    func text(_ range: Range<Int>) -> String? {
        let raw = UnsafeBufferPointer(rebasing: bytes[range])
        if !raw.contains(where: { $0 == UInt8(ascii: "\\") || $0 < 0x20 }) { return String(decoding: raw, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var at = 0
        while at < raw.count {
            let byte = raw[at]
            guard byte >= 0x20 else { return nil }
            guard byte == UInt8(ascii: "\\") else { out.append(byte); at += 1; continue }
            guard at + 1 < raw.count else { return nil }
            let escaped = raw[at + 1]
            at += 2
            switch escaped {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escaped)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                guard let unit = Self.hex(raw, at) else { return nil }
                at += 4
                var value = UInt32(unit)
                if (0xD800...0xDBFF).contains(unit) {
                    guard at + 6 <= raw.count, raw[at] == UInt8(ascii: "\\"), raw[at + 1] == UInt8(ascii: "u"),
                          let low = Self.hex(raw, at + 2), (0xDC00...0xDFFF).contains(low) else { return nil }
                    at += 6
                    value = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(unit) {
                    return nil
                }
                guard let scalar = Unicode.Scalar(value) else { return nil }
                out.append(contentsOf: String(scalar).utf8)
            default:
                return nil
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func hex(_ raw: UnsafeBufferPointer<UInt8>, _ at: Int) -> UInt16? {
        guard at + 4 <= raw.count else { return nil }
        var value: UInt16 = 0
        for offset in 0..<4 {
            let byte = raw[at + offset]
            let digit: UInt8
            switch byte {
            case 0x30...0x39: digit = byte - 0x30
            case 0x41...0x46: digit = byte - 0x41 + 10
            case 0x61...0x66: digit = byte - 0x61 + 10
            default: return nil
            }
            value = value << 4 | UInt16(digit)
        }
        return value
    }

    // MARK: The members the readers use

    private enum Key: Int {
        case type, graph, name, headline, description, datePublished, articleBody, author, publisher, image,
             primaryImageOfPage, thumbnailUrl, url, contentUrl, id

        static let spelled: [[UInt8]] = [
            "@type", "@graph", "name", "headline", "description", "datePublished", "articleBody", "author", "publisher",
            "image", "primaryImageOfPage", "thumbnailUrl", "url", "contentUrl", "@id",
        ].map { Array($0.utf8) }

        /// The index in `spelled` (the case's raw value) of the key spelled `name`, if any.
        static func slot<Name: Collection<UInt8>>(of name: Name) -> Int? {
            spelled.firstIndex { $0.count == name.count && $0.elementsEqual(name) }
        }
    }

    /// An object's members by key (the first of repeated keys), or nil when a key cannot be read.
    private func members(_ list: [(key: Range<Int>, value: Value)]) -> [Value?]? {
        var found = [Value?](repeating: nil, count: Key.spelled.count)
        for member in list {
            let raw = UnsafeBufferPointer(rebasing: bytes[member.key])
            let slot: Int?
            if raw.contains(where: { $0 == UInt8(ascii: "\\") || $0 < 0x20 }) {
                guard let decoded = text(member.key) else { return nil }
                slot = Key.slot(of: decoded.utf8)
            } else {
                slot = Key.slot(of: raw)
            }
            if let slot, found[slot] == nil { found[slot] = member.value }
        }
        return found
    }

    private func string(_ value: Value?) -> String? {
        guard case .string(let range)? = value else { return nil }
        return text(range)
    }

    private func item(_ value: Value) -> JSONLDItem {
        switch value {
        case .array(let elements):
            return .array(elements.map(item))
        case .object(let list):
            guard let members = members(list) else { return .other }
            var object = JSONLDObject()
            switch members[Key.type.rawValue] {
            case .string(let range)?: object.types = text(range).map { [$0] } ?? []
            case .array(let elements)?: object.types = elements.compactMap(string)
            default: break
            }
            object.name = string(members[Key.name.rawValue])
            object.headline = string(members[Key.headline.rawValue])
            object.description = string(members[Key.description.rawValue])
            object.datePublished = string(members[Key.datePublished.rawValue])
            object.articleBody = string(members[Key.articleBody.rawValue])
            switch members[Key.author.rawValue] {
            case .object(let author)?:
                if let name = self.members(author).flatMap({ string($0[Key.name.rawValue]) }) { object.authorNames = [name] }
            case .array(let authors)?:
                object.authorNames = authors.compactMap { author in
                    guard case .object(let list) = author else { return nil }
                    return self.members(list).flatMap { string($0[Key.name.rawValue]) }
                }
            default: break
            }
            if case .object(let publisher)? = members[Key.publisher.rawValue] {
                object.publisherName = self.members(publisher).flatMap { string($0[Key.name.rawValue]) }
            }
            for key in [Key.image, .primaryImageOfPage, .thumbnailUrl] {
                if let image = members[key.rawValue] { object.images += imageURLs(image) }
            }
            var graph: [JSONLDItem] = []
            if case .array(let elements)? = members[Key.graph.rawValue] { graph = elements.map(item) }
            return .object(object, graph: graph)
        case .string, .scalar:
            return .other
        }
    }

    /// An `image`-like member: a URL string, an ImageObject's `url`, `contentUrl` and `@id`, or an
    /// array of either (its first 20 members, arrays within it included).
    private func imageURLs(_ value: Value) -> [String] {
        switch value {
        case .string(let range):
            return text(range).map { [$0] } ?? []
        case .object(let list):
            guard let members = members(list) else { return [] }
            return [Key.url, .contentUrl, .id].compactMap { string(members[$0.rawValue]) }
        case .array(let elements):
            return elements.prefix(JSONLDItem.imageArrayLimit).flatMap(imageURLs)
        case .scalar:
            return []
        }
    }
}
