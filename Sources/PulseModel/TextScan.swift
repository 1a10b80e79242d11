/// Byte-level passes over valid UTF-8 (every Swift String is): the text rules that run on every
/// stored article (StoredText, TextKey) decode scalars straight from the bytes and write bytes,
/// which is several times faster than iterating `unicodeScalars` and appending to a String.
public enum TextScan {
    /// Runs `body` over the string's UTF-8 bytes (copied once only if the string is not native)
    /// and returns what it wrote, as a String. The writer must emit whole scalars.
    @inlinable
    public static func transform<S: StringProtocol>(_ text: S, _ body: (UnsafeBufferPointer<UInt8>, inout [UInt8]) -> Void) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        let unchanged = withBytes(text) { bytes in
            body(bytes, &out)
            return out.elementsEqual(bytes)
        }
        // Most stored text is already clean (the parser sanitised it): keep the original storage.
        return unchanged ? String(text) : String(decoding: out, as: UTF8.self)
    }

    @inlinable
    public static func withBytes<S: StringProtocol, R>(_ text: S, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let result = text.utf8.withContiguousStorageIfAvailable(body) { return result }
        let copy = Array(text.utf8)
        return copy.withUnsafeBufferPointer(body)
    }

    /// Calls `body` with each scalar's value and the byte range it occupies.
    @inlinable
    public static func forEachScalar(_ bytes: UnsafeBufferPointer<UInt8>, _ body: (UInt32, Range<Int>) -> Void) {
        var index = 0
        let count = bytes.count
        while index < count {
            let lead = bytes[index]
            if lead < 0x80 {
                body(UInt32(lead), index..<(index + 1))
                index += 1
                continue
            }
            let length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1
            let end = min(index + length, count)
            var value = UInt32(lead) & (length == 4 ? 0x07 : length == 3 ? 0x0F : 0x1F)
            var next = index + 1
            while next < end {
                value = (value << 6) | UInt32(bytes[next] & 0x3F)
                next += 1
            }
            body(value, index..<end)
            index = end
        }
    }
}
