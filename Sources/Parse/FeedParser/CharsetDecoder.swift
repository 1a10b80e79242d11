import Glibc
internal import WebText

/// Turns feed bytes into UTF-8 for libxml2 (which then runs with XML_PARSE_IGNORE_ENC).
///
/// Order of evidence: byte-order mark, then the bytes themselves (valid UTF-8 wins over any label,
/// because a Latin-1 or windows-125x text that happens to be valid multi-byte UTF-8 is vanishingly
/// rare while mislabelled UTF-8 is common), then the XML declaration, then the HTTP charset.
/// Labels in the ISO-8859-1 family decode as windows-1252 (its superset, which is what such feeds
/// really contain); UTF-8 with stray bytes is repaired by reading each bad byte as windows-1252.
/// XML-illegal C0 controls are dropped. Everything else goes through iconv.
/// Hand-written because the two hot cases (UTF-8 validation, windows-1252) must be fast and must
/// never fail; iconv covers the long tail.
struct DecodedInput {
    /// nil: the original buffer from `offset` is already clean UTF-8 (no copy made).
    var transcoded: [UInt8]?
    var offset: Int
    var encoding: String
    var repaired: Bool
}

enum CharsetDecoder {
    static func decode(_ input: UnsafeBufferPointer<UInt8>, contentType: String?) -> DecodedInput {
        let n = input.count
        func at(_ i: Int) -> UInt8 { i < n ? input[i] : 0xAA }
        // 1. Byte-order marks and BOM-less UTF-16.
        if let bom = Charset.byteOrderMark(input) {
            return bom.label == "utf-8" ? utf8(input, offset: bom.length) : viaIconv(input, offset: bom.length, charset: bom.label)
        }
        if at(0) == 0x3C, at(1) == 0, at(2) == 0x3F, at(3) == 0 { return viaIconv(input, offset: 0, charset: "utf-16le") }
        if at(0) == 0, at(1) == 0x3C, at(2) == 0, at(3) == 0x3F { return viaIconv(input, offset: 0, charset: "utf-16be") }

        let declared = xmlDeclCharset(input)
        let http = contentType.flatMap(Charset.parameter)
        let label = declared ?? http ?? "utf-8"
        // 7-bit encodings whose bytes are valid ASCII but still need decoding.
        if label.hasPrefix("iso-2022") || label == "utf-7" || label == "hz-gb-2312" {
            return viaIconv(input, offset: 0, charset: label)
        }
        let scan = scanUTF8(input)
        if scan.valid {
            return scan.controls ? repairUTF8(input, offset: 0, encoding: "utf-8")
                                 : DecodedInput(transcoded: nil, offset: 0, encoding: "utf-8", repaired: false)
        }
        // Not valid UTF-8: trust the labels, the document's own first.
        let nonUTF8 = [declared, http].compactMap { $0 }.first { !isUTF8Label($0) }
        guard let charset = nonUTF8 else { return repairUTF8(input, offset: 0, encoding: "utf-8") }
        if isLatin1Family(charset) { return windows1252(input) }
        return viaIconv(input, offset: 0, charset: charset)
    }

    static func isUTF8Label(_ s: String) -> Bool { Charset.normalize(s) == "utf-8" }

    static func isLatin1Family(_ s: String) -> Bool { Charset.normalize(s) == "windows-1252" }

    // MARK: Labels

    /// `encoding="..."` from an XML declaration at the very start of the bytes.
    static func xmlDeclCharset(_ input: UnsafeBufferPointer<UInt8>) -> String? {
        let limit = min(input.count, 512)
        guard limit > 5, input[0] == 0x3C, input[1] == 0x3F else { return nil }
        var end = 2
        while end + 1 < limit, !(input[end] == 0x3F && input[end + 1] == 0x3E) { end += 1 }
        let decl = String(decoding: UnsafeBufferPointer(rebasing: input[0..<end]), as: UTF8.self)
        guard let r = decl.firstRange(of: "encoding") else { return nil }
        var rest = decl[r.upperBound...].drop { $0 == " " || $0 == "=" || $0 == "\t" }
        guard let quote = rest.first, quote == "\"" || quote == "'" else { return nil }
        rest = rest.dropFirst()
        let value = rest.prefix { $0 != quote }.lowercased()
        return value.isEmpty || value.count > 40 ? nil : value
    }

    // MARK: UTF-8

    /// Validity (no overlongs, surrogates or > U+10FFFF) and presence of XML-illegal C0 controls.
    static func scanUTF8(_ s: UnsafeBufferPointer<UInt8>) -> (valid: Bool, controls: Bool) {
        guard s.count > 0 else { return (true, false) }
        var i = 0, controls = false
        let n = s.count
        let raw = UnsafeRawPointer(s.baseAddress!)
        while i < n {
            // Eight plain ASCII bytes (no high bit, none below 0x20) at a time.
            if i + 8 <= n {
                let w = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                let high = w & 0x8080_8080_8080_8080
                let low = (w &- 0x2020_2020_2020_2020) & ~w & 0x8080_8080_8080_8080
                if high == 0 && low == 0 { i += 8; continue }
            }
            let b = s[i]
            if b < 0x80 {
                if b < 0x20, b != 0x09, b != 0x0A, b != 0x0D { controls = true }
                i += 1
                continue
            }
            let len = sequenceLength(s, i)
            if len == 0 { return (false, controls) }
            i += len
        }
        return (true, controls)
    }

    /// Length of the valid UTF-8 sequence starting at `i` (lead byte >= 0x80), or 0.
    @inline(__always)
    static func sequenceLength(_ s: UnsafeBufferPointer<UInt8>, _ i: Int) -> Int {
        let n = s.count, b = s[i]
        @inline(__always) func cont(_ k: Int) -> Bool { k < n && s[k] & 0xC0 == 0x80 }
        switch b {
        case 0xC2...0xDF: return cont(i + 1) ? 2 : 0
        case 0xE0...0xEF:
            guard cont(i + 1), cont(i + 2) else { return 0 }
            let b1 = s[i + 1]
            if b == 0xE0 && b1 < 0xA0 { return 0 }   // overlong
            if b == 0xED && b1 >= 0xA0 { return 0 }  // surrogate
            return 3
        case 0xF0...0xF4:
            guard cont(i + 1), cont(i + 2), cont(i + 3) else { return 0 }
            let b1 = s[i + 1]
            if b == 0xF0 && b1 < 0x90 { return 0 }
            if b == 0xF4 && b1 >= 0x90 { return 0 }
            return 4
        default: return 0
        }
    }

    static func repairUTF8(_ s: UnsafeBufferPointer<UInt8>, offset: Int, encoding: String) -> DecodedInput {
        var out: [UInt8] = []
        out.reserveCapacity(s.count + 64)
        var i = offset, repaired = false
        while i < s.count {
            let b = s[i]
            if b < 0x80 {
                if b < 0x20, b != 0x09, b != 0x0A, b != 0x0D { repaired = true } else { out.append(b) }
                i += 1
                continue
            }
            let len = sequenceLength(s, i)
            if len == 0 {
                appendScalar(cp1252(b), to: &out)
                repaired = true
                i += 1
            } else {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: s[i..<(i + len)]))
                i += len
            }
        }
        return DecodedInput(transcoded: out, offset: 0, encoding: encoding, repaired: repaired)
    }

    static func utf8(_ s: UnsafeBufferPointer<UInt8>, offset: Int) -> DecodedInput {
        let rest = UnsafeBufferPointer(rebasing: s[offset...])
        let scan = scanUTF8(rest)
        if scan.valid && !scan.controls {
            return DecodedInput(transcoded: nil, offset: offset, encoding: "utf-8", repaired: false)
        }
        return repairUTF8(s, offset: offset, encoding: "utf-8")
    }

    // MARK: windows-1252

    /// windows-1252 (WebText's table); its five undefined bytes are C1 controls, which the text
    /// sanitizer removes like any other.
    @inline(__always)
    static func cp1252(_ b: UInt8) -> UInt32 { Windows1252.scalar(b) }

    static func windows1252(_ s: UnsafeBufferPointer<UInt8>) -> DecodedInput {
        var out: [UInt8] = []
        out.reserveCapacity(s.count + s.count / 8)
        var repaired = false
        for b in s {
            if b < 0x20, b != 0x09, b != 0x0A, b != 0x0D { repaired = true; continue }
            appendScalar(cp1252(b), to: &out)
        }
        return DecodedInput(transcoded: out, offset: 0, encoding: "windows-1252", repaired: repaired)
    }

    @inline(__always)
    static func appendScalar(_ v: UInt32, to out: inout [UInt8]) {
        switch v {
        case 0: break
        case 0..<0x80: out.append(UInt8(v))
        case 0x80..<0x800:
            out.append(UInt8(0xC0 | (v >> 6))); out.append(UInt8(0x80 | (v & 0x3F)))
        case 0x800..<0x10000:
            out.append(UInt8(0xE0 | (v >> 12))); out.append(UInt8(0x80 | ((v >> 6) & 0x3F)))
            out.append(UInt8(0x80 | (v & 0x3F)))
        default:
            out.append(UInt8(0xF0 | (v >> 18))); out.append(UInt8(0x80 | ((v >> 12) & 0x3F)))
            out.append(UInt8(0x80 | ((v >> 6) & 0x3F))); out.append(UInt8(0x80 | (v & 0x3F)))
        }
    }

    // MARK: iconv (everything else)

    static func viaIconv(_ s: UnsafeBufferPointer<UInt8>, offset: Int, charset: String) -> DecodedInput {
        guard let converted = Charset.transcodeToUTF8(UnsafeBufferPointer(rebasing: s[offset...]), from: charset) else {
            return repairUTF8(s, offset: offset, encoding: "utf-8")  // unknown label
        }
        // iconv output is UTF-8 but may still carry XML-illegal controls.
        let cleaned = converted.bytes.withUnsafeBufferPointer { repairUTF8($0, offset: 0, encoding: charset) }
        return DecodedInput(transcoded: cleaned.transcoded, offset: 0, encoding: charset,
                            repaired: converted.repaired || cleaned.repaired)
    }
}
