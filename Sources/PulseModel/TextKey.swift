/// Text reduced for comparison: letters and digits in lower case, one space between words.
/// Shared by the language rule (repeated sentences) and the extractor (repeated captions, pull
/// quotes), which run it on every block of every page: one pass over the UTF-8 bytes with an
/// ASCII fast path (see TextScan), no Character or per-scalar String appends.
public enum TextKey {
    public static func words<S: StringProtocol>(_ text: S) -> String {
        TextScan.transform(text) { bytes, key in
            var pendingSpace = false
            TextScan.forEachScalar(bytes) { value, range in
                if value < 0x80 {
                    let isWord = (0x30...0x39).contains(value) || (0x41...0x5A).contains(value)
                        || (0x61...0x7A).contains(value)
                    guard isWord else {
                        pendingSpace = true
                        return
                    }
                    if pendingSpace && !key.isEmpty { key.append(0x20) }
                    pendingSpace = false
                    key.append(UInt8(value) | ((0x41...0x5A).contains(value) ? 0x20 : 0))
                    return
                }
                guard let scalar = Unicode.Scalar(value),
                      scalar.properties.isAlphabetic || scalar.properties.numericType != nil else {
                    pendingSpace = true
                    return
                }
                if pendingSpace && !key.isEmpty { key.append(0x20) }
                pendingSpace = false
                if scalar.properties.changesWhenLowercased {
                    for lower in scalar.properties.lowercaseMapping.unicodeScalars { key.append(contentsOf: lower.utf8) }
                } else {
                    TextScan.appendScalar(bytes, range, to: &key)
                }
            }
        }
    }
}
