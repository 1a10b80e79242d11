/// Text reduced for comparison: letters and digits in lower case, one space between words.
/// Shared by the language rule (repeated sentences) and the extractor (repeated captions, pull
/// quotes), which run it on every block of every page: one pass over the UTF-8 bytes with an
/// ASCII fast path (see TextScan), no Character or per-scalar String appends.
public enum TextKey {
    public static func words<S: StringProtocol>(_ text: S) -> String {
        TextScan.withBytes(text) { words(utf8: $0) }
    }

    /// `words` of valid UTF-8 (a slice of a string's own bytes).
    public static func words(utf8 bytes: UnsafeBufferPointer<UInt8>) -> String {
        // Lower-casing grows a scalar by at most half its bytes (U+0130 -> "i\u{307}", U+023A ->
        // U+2C65), and a space is written only for a run of separators that wrote nothing, so
        // 2n + 1 bytes always suffice. Written into the string's own storage: appending to an
        // array byte by byte was most of this function's time.
        String(unsafeUninitializedCapacity: bytes.count * 2 + 1) { out in
            var count = 0
            var pendingSpace = false
            var index = 0
            let end = bytes.count
            while index < end {
                let byte = bytes[index]
                if byte < 0x80 {
                    index += 1
                    let isUpper = byte &- 0x41 < 26
                    guard isUpper || byte &- 0x61 < 26 || byte &- 0x30 < 10 else {
                        pendingSpace = true
                        continue
                    }
                    if pendingSpace && count > 0 { out[count] = 0x20; count += 1 }
                    pendingSpace = false
                    out[count] = isUpper ? byte | 0x20 : byte
                    count += 1
                    // The rest of an ASCII word, copied without the checks above for each byte.
                    while index < end {
                        let next = bytes[index]
                        if next &- 0x61 < 26 || next &- 0x30 < 10 {
                            out[count] = next
                        } else if next &- 0x41 < 26 {
                            out[count] = next | 0x20
                        } else {
                            break
                        }
                        count += 1
                        index += 1
                    }
                    continue
                }
                let (value, next) = TextScan.scalar(at: index, in: bytes)
                defer { index = next }
                guard let scalar = Unicode.Scalar(value),
                      scalar.properties.isAlphabetic || scalar.properties.numericType != nil else {
                    pendingSpace = true
                    continue
                }
                if pendingSpace && count > 0 { out[count] = 0x20; count += 1 }
                pendingSpace = false
                if scalar.properties.changesWhenLowercased {
                    for lower in scalar.properties.lowercaseMapping.unicodeScalars {
                        for unit in lower.utf8 { out[count] = unit; count += 1 }
                    }
                } else {
                    for offset in index..<next { out[count] = bytes[offset]; count += 1 }
                }
            }
            return count
        }
    }
}
