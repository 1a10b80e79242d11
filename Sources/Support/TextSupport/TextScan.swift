import Glibc

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

    /// An ASCII capital lower-cased, any other byte as it is: what lower-casing does to the bytes
    /// of ASCII text (no byte of a longer UTF-8 sequence is an ASCII letter).
    @inlinable
    public static func lowercasedASCII(_ byte: UInt8) -> UInt8 { byte &- 0x41 < 26 ? byte | 0x20 : byte }

    /// The value of an ASCII hex digit (either case); nil for any other byte.
    @inlinable
    public static func hexDigitValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x61...0x66: byte - 0x61 + 10
        case 0x41...0x46: byte - 0x41 + 10
        default: nil
        }
    }

    /// `value` with each scalar `replacement` answers for replaced by the answer, the others kept: the
    /// one escaping loop behind the log's JSON strings and the exports' TSV cells and XML attributes.
    public static func escaping<Failure: Error>(_ value: String,
                                                _ replacement: (Unicode.Scalar) throws(Failure) -> String?) throws(Failure) -> String {
        var out = ""
        out.reserveCapacity(value.utf8.count)
        for scalar in value.unicodeScalars {
            if let replaced = try replacement(scalar) { out += replaced } else { out.unicodeScalars.append(scalar) }
        }
        return out
    }

    /// `value` in hexadecimal, zero-padded to at least `width` digits.
    public static func hex(_ value: UInt32, width: Int, uppercase: Bool = false) -> String {
        let digits = String(value, radix: 16, uppercase: uppercase)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    /// True when every byte of `text` is ASCII: the guard of the byte-level shortcuts that are
    /// exact only for ASCII text.
    @inlinable
    public static func isASCII<S: StringProtocol>(_ text: S) -> Bool {
        withBytes(text) { !$0.contains(where: { $0 >= 0x80 }) }
    }

    /// Whether any of `text`'s UTF-8 bytes passes `test`, read from the string's own storage:
    /// `text.utf8.contains` steps String.UTF8View's iterator, about 20 instructions a byte.
    @inlinable
    public static func containsByte<S: StringProtocol>(_ text: S, where test: (UInt8) -> Bool) -> Bool {
        withBytes(text) { $0.contains(where: test) }
    }

    /// True when `needle`'s bytes occur in `text`: Foundation's literal search (code point for code
    /// point; an empty needle is found). Foundation's `contains(_:)` bridges both sides to NSString
    /// and searches UTF-16; in the extraction's furniture and pull-quote rules that was ~5% of a
    /// page's CPU.
    public static func contains<S: StringProtocol>(_ text: S, _ needle: String) -> Bool {
        var needle = needle
        return needle.withUTF8 { pattern in withBytes(text) { contains($0, pattern) } }
    }

    /// Needles up to this long are searched directly: at most this many comparisons per byte.
    public static let directSearchLimit = 32

    /// Whether `needle` occurs in `haystack`. Short needles (keywords, the ASCII words of the
    /// furniture rules) are compared at each position, which is fastest for them and still linear.
    /// Longer ones (a heading searched for in a paragraph) use Knuth-Morris-Pratt, linear in both
    /// lengths whatever the bytes: a page of "a a a ..." cannot make the search quadratic.
    /// Written by hand: glibc's memmem is not visible to Swift, and no package here searches bytes.
    public static func contains(_ haystack: UnsafeBufferPointer<UInt8>, _ needle: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = needle.first else { return true }
        guard haystack.count >= needle.count else { return false }
        guard needle.count > directSearchLimit else {
            // memchr finds each place the first byte occurs; the rest is compared there.
            guard let base = haystack.baseAddress else { return false }
            let last = haystack.count - needle.count
            var index = 0
            while index <= last {
                guard let hit = memchr(base + index, Int32(first), last - index + 1) else { return false }
                index = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                var offset = 1
                while offset < needle.count, haystack[index + offset] == needle[offset] { offset += 1 }
                if offset == needle.count { return true }
                index += 1
            }
            return false
        }
        // border[i]: the length of the longest proper prefix of needle[0...i] that is also its suffix.
        var border = [Int](repeating: 0, count: needle.count)
        var length = 0
        for index in 1..<needle.count {
            while length > 0 && needle[index] != needle[length] { length = border[length - 1] }
            if needle[index] == needle[length] { length += 1 }
            border[index] = length
        }
        var matched = 0
        for byte in haystack {
            while matched > 0 && byte != needle[matched] { matched = border[matched - 1] }
            if byte == needle[matched] { matched += 1 }
            if matched == needle.count { return true }
        }
        return false
    }

    /// `trimmingCharacters(in: .whitespacesAndNewlines)` without Foundation, which bridges the
    /// whole string to NSString and back (a page's JSON-LD script is trimmed before parsing).
    /// The set is Foundation's: Unicode's White_Space plus U+200B ZERO WIDTH SPACE.
    public static func trimmingWhitespace<S: StringProtocol>(_ text: S) -> String {
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !isWhitespace($0) }) else { return "" }
        let last = scalars.lastIndex(where: { !isWhitespace($0) })!
        if first == scalars.startIndex, scalars.index(after: last) == scalars.endIndex, let whole = text as? String {
            return whole
        }
        return String(String.UnicodeScalarView(scalars[first...last]))
    }

    /// The same for a String, cut from its own storage: rebuilding the kept part scalar by scalar
    /// was most of the cost on titles and headings.
    public static func trimmingWhitespace(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !isWhitespace($0) }) else { return "" }
        let end = scalars.index(after: scalars.lastIndex(where: { !isWhitespace($0) })!)
        if first == scalars.startIndex, end == scalars.endIndex { return text }
        return String(scalars[first..<end])
    }

    /// Foundation's `.whitespacesAndNewlines`: tab to carriage return, space, NEL, NBSP, U+1680,
    /// U+2000-200B, the line and paragraph separators, U+202F, U+205F and U+3000.
    @inlinable
    public static func isWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09...0x0D, 0x20, 0x85, 0xA0, 0x1680, 0x2000...0x200B, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000: true
        default: false
        }
    }

    /// Appends one scalar's bytes (`range` from `forEachScalar`): a single byte for ASCII, where the
    /// generic `append(contentsOf:)` of a slice cost more than the rest of the loop.
    @inlinable
    public static func appendScalar(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, to out: inout [UInt8]) {
        if range.count == 1 {
            out.append(bytes[range.lowerBound])
        } else {
            for index in range { out.append(bytes[index]) }
        }
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
            let (value, end) = scalar(at: index, in: bytes)
            body(value, index..<end)
            index = end
        }
    }

    /// The value of the scalar whose lead byte is at `index`, and the index after it (never past
    /// the end: a sequence cut short is read as far as it goes).
    @inlinable
    public static func scalar(at index: Int, in bytes: UnsafeBufferPointer<UInt8>) -> (value: UInt32, next: Int) {
        let lead = bytes[index]
        if lead < 0x80 { return (UInt32(lead), index + 1) }
        let length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1
        let end = min(index + length, bytes.count)
        var value = UInt32(lead) & (length == 4 ? 0x07 : length == 3 ? 0x0F : 0x1F)
        var next = index + 1
        while next < end {
            value = (value << 6) | UInt32(bytes[next] & 0x3F)
            next += 1
        }
        return (value, end)
    }
}

extension TextScan {
    /// `text` without the leading and trailing characters `drop` accepts (`trimmingCharacters(in:)`
    /// for any set, which FoundationEssentials does not offer).
    public static func trimming<S: StringProtocol>(_ text: S, while drop: (Character) -> Bool) -> String {
        guard let first = text.firstIndex(where: { !drop($0) }) else { return "" }
        let last = text.lastIndex(where: { !drop($0) })!
        return String(text[first...last])
    }

    /// Foundation's `.whitespaces`: blanks that do not end a line (tab, the space separators).
    public static func isBlank(_ character: Character) -> Bool {
        character.isWhitespace && !character.isNewline
    }
}

extension TextScan {
    /// Every occurrence of `target` in `text` replaced, compared byte for byte in UTF-8 as
    /// Foundation's `replacingOccurrences(of:with:)` compared literally (not by Character: a
    /// secret followed by a combining mark is still found).
    public static func replacingLiteral(_ target: String, with replacement: String, in text: String) -> String {
        let needle = Array(target.utf8)
        guard !needle.isEmpty else { return text }
        let haystack = Array(text.utf8)
        var result: [UInt8] = []
        result.reserveCapacity(haystack.count)
        var index = 0
        while index < haystack.count {
            if haystack[index] == needle[0], index + needle.count <= haystack.count,
               haystack[index..<index + needle.count].elementsEqual(needle) {
                result.append(contentsOf: replacement.utf8)
                index += needle.count
            } else {
                result.append(haystack[index])
                index += 1
            }
        }
        return String(decoding: result, as: UTF8.self)
    }
}
