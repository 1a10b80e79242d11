internal import CLibXML2

/// HTML named character references for every stage: the feed parser's entity repair and its
/// declared-entity handling, and page metadata (OpenGraph) decoding attribute values. The table
/// is libxml2's HTML 4 one (253 names) plus `apos`; nothing is ever expanded from a DTD.
public enum HTMLEntities {
    /// The code point of `&name;` (name without `&` and `;`), or nil.
    public static func codePoint(_ name: UnsafeBufferPointer<UInt8>) -> UInt32? {
        guard !name.isEmpty, name.count < 32 else { return nil }
        var z = [UInt8](name)
        if z == Array("apos".utf8) { return 39 }
        z.append(0)
        guard let desc = z.withUnsafeBufferPointer({ htmlEntityLookup($0.baseAddress) }) else { return nil }
        return desc.pointee.value
    }

    public static func codePoint(_ name: String) -> UInt32? {
        var s = name
        return s.withUTF8 { codePoint($0) }
    }

    /// Decodes one level of named and numeric references (`&amp;amp;` -> `&amp;`); anything that
    /// is not a known reference stays as written. Zero and non-scalars become U+FFFD.
    public static func decode(_ text: String) -> String {
        // On the string's own bytes: `contains("&")` compared Characters, 5k instructions a call.
        guard text.utf8.withContiguousStorageIfAvailable({ $0.contains(0x26) }) ?? text.contains("&") else { return text }
        var result = ""
        var rest = Substring(text)
        while let amp = rest.firstIndex(of: "&") {
            result += rest[..<amp]
            let after = rest[rest.index(after: amp)...]
            if let semicolon = after.prefix(33).firstIndex(of: ";") {
                let name = after[..<semicolon]
                if let value = numeric(name) ?? codePoint(String(name)).map(string) {
                    result += value
                    rest = after[after.index(after: semicolon)...]
                    continue
                }
            }
            result += "&"
            rest = after
        }
        return result + rest
    }

    private static func numeric(_ name: Substring) -> String? {
        guard name.hasPrefix("#") else { return nil }
        let digits = name.dropFirst()
        let value: UInt32?
        if digits.hasPrefix("x") || digits.hasPrefix("X") {
            value = UInt32(digits.dropFirst(), radix: 16)
        } else {
            value = UInt32(digits, radix: 10)
        }
        guard let value else { return nil }
        return string(value)
    }

    private static func string(_ value: UInt32) -> String {
        guard value != 0, let scalar = Unicode.Scalar(value) else { return "\u{FFFD}" }
        return String(Character(scalar))
    }
}
