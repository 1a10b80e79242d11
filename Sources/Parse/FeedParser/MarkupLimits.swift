import Glibc

/// Attribute counts in markup, checked before libxml2 sees it: libxml2's duplicate-attribute
/// check is quadratic in the attributes of one element, and it runs inside a single reader step
/// where the CPU budget cannot be checked (200 000 attributes on one XHTML element took minutes).
/// One linear pass over the bytes; text that merely looks like a tag can only over-count.
enum MarkupLimits {
    static let maxAttributesPerElement = 512
    static let maxAttributes = 200_000

    /// Why `bytes` is refused, or nil. `maxAttributes` bounds the whole document (an OPML list of
    /// sources is all attributes, and only the per-element bound guards libxml2 itself).
    static func refusal(_ bytes: UnsafeBufferPointer<UInt8>, field: String,
                        maxAttributes: Int = MarkupLimits.maxAttributes) -> FeedParseError? {
        var total = 0
        var index = 0
        let count = bytes.count
        guard let base = bytes.baseAddress else { return nil }
        while index < count {
            // memchr to the next `<`: this runs over every document and every escaped-HTML field,
            // and a byte loop over the text between tags was 6% of --dump-feed's time.
            guard let hit = memchr(base + index, 0x3C, count - index) else { break }
            index = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
            guard index + 1 < count, isLetter(bytes[index + 1]) else { index += 1; continue }
            index += 2
            var inTag = 0
            var quote: UInt8 = 0
            var afterEquals = false
            var previousWasSpace = false
            while index < count {
                let byte = bytes[index]
                index += 1
                if quote != 0 {
                    if byte == quote { quote = 0 }
                    continue
                }
                if byte == 0x3E { break }
                if (byte == 0x22 || byte == 0x27) && afterEquals { quote = byte; afterEquals = false; continue }
                let space = byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0C
                if space { previousWasSpace = true; continue }
                if byte == 0x3D { afterEquals = true; previousWasSpace = false; continue }
                if previousWasSpace, byte != 0x2F, !afterEquals { inTag += 1 }
                afterEquals = false
                previousWasSpace = false
            }
            if inTag > maxAttributesPerElement {
                return .markupTooComplex("\(field) has an element with more than \(maxAttributesPerElement) attributes")
            }
            total += inTag
            if total > maxAttributes {
                return .markupTooComplex("\(field) has more than \(maxAttributes) attributes")
            }
        }
        return nil
    }

    private static func isLetter(_ b: UInt8) -> Bool { (b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A }
}
