/// Decodes the character references that survive into attribute values and JSON-LD strings
/// (sites often double-escape: `&amp;amp;`). Gumbo already decoded one level; this handles
/// the common named references and numeric ones, nothing that could expand (no DTD).
public enum EntityDecoding {
    static let named: [Substring: String] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": "\u{A0}",
        "#39": "'", "hellip": "…", "ndash": "–", "mdash": "—", "rsquo": "’", "lsquo": "‘",
        "ldquo": "“", "rdquo": "”", "copy": "©", "reg": "®",
    ]

    public static func decode(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var result = ""
        var rest = Substring(text)
        while let amp = rest.firstIndex(of: "&") {
            result += rest[..<amp]
            let after = rest[rest.index(after: amp)...]
            if let semicolon = after.prefix(10).firstIndex(of: ";") {
                let name = after[..<semicolon]
                if let value = named[name] ?? numeric(name) {
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
        guard value != 0, let scalar = Unicode.Scalar(value) else { return "\u{FFFD}" }
        return String(Character(scalar))
    }
}
