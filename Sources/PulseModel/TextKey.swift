/// Text reduced for comparison: letters and digits in lower case, one space between words.
/// Shared by the language rule (repeated sentences) and the extractor (repeated captions, pull
/// quotes), which run it on every block of every page: bytes with an ASCII fast path, no
/// Character or per-scalar String appends.
public enum TextKey {
    public static func words<S: StringProtocol>(_ text: S) -> String {
        var key: [UInt8] = []
        key.reserveCapacity(text.utf8.count)
        var pendingSpace = false
        for scalar in text.unicodeScalars {
            let value = scalar.value
            let isWord = value < 0x80
                ? (0x30...0x39).contains(value) || (0x41...0x5A).contains(value) || (0x61...0x7A).contains(value)
                : scalar.properties.isAlphabetic || scalar.properties.numericType != nil
            guard isWord else {
                pendingSpace = true
                continue
            }
            if pendingSpace && !key.isEmpty { key.append(0x20) }
            pendingSpace = false
            if value < 0x80 {
                key.append(UInt8(value) | ((0x41...0x5A).contains(value) ? 0x20 : 0))
            } else {
                for lower in scalar.properties.lowercaseMapping.unicodeScalars { key.append(contentsOf: lower.utf8) }
            }
        }
        return String(decoding: key, as: UTF8.self)
    }
}
