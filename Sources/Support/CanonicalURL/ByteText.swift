// Byte-string helpers with Go's semantics (strings.ToLower, utf8.DecodeRune). Hand-written
// because Swift's String APIs repair invalid UTF-8 differently (one U+FFFD per maximal subpart,
// Go emits one per byte) and use full rather than simple case mapping.

enum ByteText {
    /// The Unicode version of Go 1.19's `unicode` tables; letters assigned later are not
    /// case-mapped by it. Raise this if the reference toolchain changes (Go 1.21+: 15.0).
    static let goUnicodeVersion = (major: 13, minor: 0)

    static func asciiLowercased(_ s: [UInt8]) -> [UInt8] {
        s.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }
    }

    static func firstRange(of needle: [UInt8], in hay: ArraySlice<UInt8>) -> Int? {
        guard !needle.isEmpty, hay.count >= needle.count else { return nil }
        var i = hay.startIndex
        while i + needle.count <= hay.endIndex {
            if hay[i..<i + needle.count].elementsEqual(needle) { return i }
            i += 1
        }
        return nil
    }

    /// Go's `strings.ToLower`: ASCII fast path, otherwise rune-wise `unicode.ToLower` where each
    /// byte of an invalid UTF-8 sequence becomes U+FFFD.
    static func goLowercased(_ s: [UInt8]) -> [UInt8] {
        if s.allSatisfy({ $0 < 0x80 }) { return asciiLowercased(s) }
        var out: [UInt8] = []
        out.reserveCapacity(s.count + 4)
        var i = 0
        while i < s.count {
            let (rune, width) = decodeRune(s, at: i)
            appendUTF8(goSimpleLowercase(rune), to: &out)
            i += width
        }
        return out
    }

    /// Go's `utf8.DecodeRune`: strict UTF-8; anything invalid decodes as (U+FFFD, 1).
    static func decodeRune(_ s: [UInt8], at i: Int) -> (UInt32, Int) {
        let invalid: (UInt32, Int) = (0xFFFD, 1)
        let b0 = s[i]
        if b0 < 0x80 { return (UInt32(b0), 1) }
        func cont(_ k: Int, _ lo: UInt8 = 0x80, _ hi: UInt8 = 0xBF) -> UInt32? {
            guard i + k < s.count, s[i + k] >= lo, s[i + k] <= hi else { return nil }
            return UInt32(s[i + k] & 0x3F)
        }
        switch b0 {
        case 0xC2...0xDF:
            guard let c1 = cont(1) else { return invalid }
            return (UInt32(b0 & 0x1F) << 6 | c1, 2)
        case 0xE0...0xEF:
            let lo: UInt8 = b0 == 0xE0 ? 0xA0 : 0x80
            let hi: UInt8 = b0 == 0xED ? 0x9F : 0xBF
            guard let c1 = cont(1, lo, hi), let c2 = cont(2) else { return invalid }
            return (UInt32(b0 & 0x0F) << 12 | c1 << 6 | c2, 3)
        case 0xF0...0xF4:
            let lo: UInt8 = b0 == 0xF0 ? 0x90 : 0x80
            let hi: UInt8 = b0 == 0xF4 ? 0x8F : 0xBF
            guard let c1 = cont(1, lo, hi), let c2 = cont(2), let c3 = cont(3) else { return invalid }
            return (UInt32(b0 & 0x07) << 18 | c1 << 12 | c2 << 6 | c3, 4)
        default:
            return invalid
        }
    }

    /// Strict UTF-8 check (no overlongs, surrogates or values past U+10FFFF).
    static func isValidUTF8(_ s: [UInt8]) -> Bool {
        var i = 0
        while i < s.count {
            let (rune, width) = decodeRune(s, at: i)
            if rune == 0xFFFD && width == 1 { return false }
            i += width
        }
        return true
    }

    static func appendUTF8(_ v: UInt32, to out: inout [UInt8]) {
        let scalar = Unicode.Scalar(v) ?? "\u{FFFD}"
        out.append(contentsOf: UTF8.encode(scalar)!)
    }

    /// Go's `unicode.ToLower` (UnicodeData simple mapping). Swift exposes the full mapping;
    /// the two differ only for U+0130, whose simple lowercase is plain "i".
    static func goSimpleLowercase(_ v: UInt32) -> UInt32 {
        if v < 0x80 { return v >= 0x41 && v <= 0x5A ? v + 0x20 : v }
        if v == 0x130 { return 0x69 }
        guard let scalar = Unicode.Scalar(v) else { return v }
        let props = scalar.properties
        guard props.changesWhenLowercased, let age = props.age,
              (age.major, age.minor) <= goUnicodeVersion else { return v }
        let mapped = props.lowercaseMapping.unicodeScalars
        guard mapped.count == 1, let lower = mapped.first else { return v }
        return lower.value
    }
}
