/// Text-format PostgreSQL array literals for parameters (`$1::text[]`). Every element is quoted
/// and escaped, so any string is safe.
public enum PostgresArray {
    public static func text(_ elements: [String?]) -> String {
        var literal = ArrayLiteral()
        for element in elements { literal.append(element) }
        return literal.text
    }

    public static func text(_ elements: [String]) -> String { text(elements.map { Optional($0) }) }
}

/// One array literal built element by element on bytes: `{"a","b\"c",NULL}`. Strings are quoted,
/// with `"` and `\` escaped (the array input syntax); integers and booleans are written bare.
public struct ArrayLiteral: Sendable {
    private var bytes: [UInt8] = [UInt8(ascii: "{")]

    public init(reservingCapacity capacity: Int = 0) { bytes.reserveCapacity(capacity + 2) }

    public mutating func append(_ value: String?) {
        separate()
        guard var value else { return bytes.append(contentsOf: "NULL".utf8) }
        bytes.append(UInt8(ascii: "\""))
        value.withUTF8 { source in
            for byte in source {
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { bytes.append(UInt8(ascii: "\\")) }
                bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    public mutating func append(_ value: Int?) {
        separate()
        guard let value else { return bytes.append(contentsOf: "NULL".utf8) }
        bytes.append(contentsOf: String(value).utf8)
    }

    public mutating func append(_ value: Bool?) {
        separate()
        guard let value else { return bytes.append(contentsOf: "NULL".utf8) }
        bytes.append(value ? UInt8(ascii: "t") : UInt8(ascii: "f"))
    }

    public var text: String { String(decoding: bytes + [UInt8(ascii: "}")], as: UTF8.self) }

    private mutating func separate() {
        if bytes.count > 1 { bytes.append(UInt8(ascii: ",")) }
    }
}
