import TextSupport
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
            var writer = BufferWriter(out: out)
            normalize(bytes, into: &writer)
            return writer.count
        }
    }

    /// A 64-bit FNV-1a hash of `words(utf8:)`'s bytes, computed without building the String;
    /// nil when those bytes would be empty. For sets of keys that only decide what to leave out
    /// (the language rule's repeated sentences), where a String and its SipHash per sentence were
    /// half of the rule's own time. Two different keys share a fingerprint with a chance of about
    /// n^2 / 2^65 for n keys; the cost of one would be a sentence left out of a detection.
    public static func fingerprint(utf8 bytes: UnsafeBufferPointer<UInt8>) -> UInt64? {
        let key = keyFingerprint(utf8: bytes)
        return key.length == 0 ? nil : key.hash
    }

    /// The FNV-1a hash of `words(text)` and that key's length in UTF-8 bytes, without building it
    /// (the extractor's repeated-caption rule needs both for every short block of a page).
    public static func keyFingerprint<S: StringProtocol>(_ text: S) -> (hash: UInt64, length: Int) {
        TextScan.withBytes(text) { keyFingerprint(utf8: $0) }
    }

    public static func keyFingerprint(utf8 bytes: UnsafeBufferPointer<UInt8>) -> (hash: UInt64, length: Int) {
        var writer = HashWriter()
        normalize(bytes, into: &writer)
        return (writer.hash, writer.count)
    }

    private protocol Writer {
        mutating func write(_ byte: UInt8)
        var count: Int { get }
    }

    private struct BufferWriter: Writer {
        let out: UnsafeMutableBufferPointer<UInt8>
        var count = 0
        @inline(__always) mutating func write(_ byte: UInt8) {
            out[count] = byte
            count += 1
        }
    }

    private struct HashWriter: Writer {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        var count = 0
        @inline(__always) mutating func write(_ byte: UInt8) {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
            count += 1
        }
    }

    @inline(__always)
    private static func normalize<W: Writer>(_ bytes: UnsafeBufferPointer<UInt8>, into out: inout W) {
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
                if pendingSpace && out.count > 0 { out.write(0x20) }
                pendingSpace = false
                out.write(isUpper ? byte | 0x20 : byte)
                // The rest of an ASCII word, copied without the checks above for each byte.
                while index < end {
                    let next = bytes[index]
                    if next &- 0x61 < 26 || next &- 0x30 < 10 {
                        out.write(next)
                    } else if next &- 0x41 < 26 {
                        out.write(next | 0x20)
                    } else {
                        break
                    }
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
            if pendingSpace && out.count > 0 { out.write(0x20) }
            pendingSpace = false
            if scalar.properties.changesWhenLowercased {
                for lower in scalar.properties.lowercaseMapping.unicodeScalars {
                    for unit in lower.utf8 { out.write(unit) }
                }
            } else {
                for offset in index..<next { out.write(bytes[offset]) }
            }
        }
    }
}
