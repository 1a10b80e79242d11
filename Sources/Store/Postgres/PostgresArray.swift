/// Text-format PostgreSQL array literals for parameters (`$1::text[]`, `$2::integer[]`), built on
/// bytes: `{"a","b\"c",NULL}`. Strings are quoted, with `"` and `\` escaped (the array input
/// syntax), so any string is safe; integers and booleans are written bare.
public enum PostgresArray {
    public static func text(_ elements: [String?]) -> String { column(elements) { $0 } }

    /// `value` of each of `rows`: one column of rows a statement reads back with `unnest`. Inlinable, so
    /// the insert of every article chunk gets it specialised.
    @inlinable
    public static func column<Row, Value: ArrayElement>(_ rows: some Sequence<Row>, _ value: (Row) -> Value?) -> String {
        var bytes: [UInt8] = [UInt8(ascii: "{")]
        for row in rows {
            if bytes.count > 1 { bytes.append(UInt8(ascii: ",")) }
            if let element = value(row) { element.appendArrayText(to: &bytes) } else { bytes.append(contentsOf: "NULL".utf8) }
        }
        bytes.append(UInt8(ascii: "}"))
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// A value an array literal holds, as its text there.
public protocol ArrayElement {
    func appendArrayText(to bytes: inout [UInt8])
}

extension String: ArrayElement {
    public func appendArrayText(to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        var text = self
        text.withUTF8 { source in
            for byte in source {
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { bytes.append(UInt8(ascii: "\\")) }
                bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}

extension Int: ArrayElement {
    public func appendArrayText(to bytes: inout [UInt8]) { bytes.append(contentsOf: String(self).utf8) }
}

extension Bool: ArrayElement {
    public func appendArrayText(to bytes: inout [UInt8]) { bytes.append(self ? UInt8(ascii: "t") : UInt8(ascii: "f")) }
}
