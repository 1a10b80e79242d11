import Glibc
/// Charset evidence shared by the feed decoder (FeedParser) and the page decoder (HTMLDocument):
/// byte-order marks, the `charset=` parameter, label aliases and windows-1252. Each stage keeps
/// only its own order of evidence (an XML declaration for feeds, `<meta>` for pages).
public enum Charset {
    /// A byte-order mark at the start: the label (iconv/WHATWG spelling) and its length.
    /// UTF-32 is checked before UTF-16, whose little-endian BOM is UTF-32LE's prefix.
    public static func byteOrderMark(_ bytes: UnsafeBufferPointer<UInt8>) -> (label: String, length: Int)? {
        let n = bytes.count
        func at(_ i: Int) -> UInt8 { i < n ? bytes[i] : 0xAA }
        if at(0) == 0xEF, at(1) == 0xBB, at(2) == 0xBF { return ("utf-8", 3) }
        if at(0) == 0xFF, at(1) == 0xFE { return n >= 4 && at(2) == 0 && at(3) == 0 ? ("utf-32le", 4) : ("utf-16le", 2) }
        if at(0) == 0, at(1) == 0, at(2) == 0xFE, at(3) == 0xFF { return ("utf-32be", 4) }
        if at(0) == 0xFE, at(1) == 0xFF { return ("utf-16be", 2) }
        return nil
    }

    public static func byteOrderMark(_ bytes: [UInt8]) -> (label: String, length: Int)? {
        bytes.withUnsafeBufferPointer { byteOrderMark($0) }
    }

    /// `charset=` from a Content-Type value (HTTP header or `<meta content>`), lowercased,
    /// quotes allowed; nil when absent, empty or longer than 40 characters.
    public static func parameter(_ value: String) -> String? {
        let lower = Substring(value.lowercased())
        guard let at = lower.indices.first(where: { lower[$0...].hasPrefix("charset") }) else { return nil }
        var rest = lower[lower.index(at, offsetBy: 7)...].drop { $0 == " " || $0 == "\t" }
        guard rest.first == "=" else { return nil }
        rest = rest.dropFirst().drop { $0 == " " || $0 == "\t" }
        let quote = rest.first == "\"" || rest.first == "'" ? rest.first : nil
        if quote != nil { rest = rest.dropFirst() }
        let label = rest.prefix { ch in
            if let quote { return ch != quote }
            return ch != ";" && ch != " " && ch != "\"" && ch != "'" && ch != "\t"
        }
        return label.isEmpty || label.count > 40 ? nil : String(label)
    }

    /// The label's canonical name (WHATWG: the ISO-8859-1 family and ASCII are windows-1252,
    /// their superset and what such documents really contain); nil when not one we alias.
    public static func normalize(_ raw: String) -> String? {
        var label = Substring(raw.lowercased())
        func junk(_ c: Character) -> Bool { c == " " || c == "\t" || c == "\r" || c == "\n" || c == "\"" || c == "'" }
        while let f = label.first, junk(f) { label = label.dropFirst() }
        while let l = label.last, junk(l) { label = label.dropLast() }
        return alias(label)
    }

    /// A switch rather than a Dictionary literal: the first Dictionary<String, String> of a
    /// process costs ~0.1 ms of generic metadata, a fifth of a small feed's parse.
    private static func alias(_ label: Substring) -> String? {
        switch label {
        case "utf-8", "utf8", "unicode-1-1-utf-8", "x-unicode20utf8": return "utf-8"
        case "us-ascii", "ascii", "iso-8859-1", "iso8859-1", "iso_8859-1", "latin1", "latin-1", "l1", "cp1252",
             "windows-1252", "x-cp1252", "cp819", "ibm819", "iso-ir-100", "csisolatin1": return "windows-1252"
        case "utf-16", "utf-16le": return "utf-16le"
        case "utf-16be": return "utf-16be"
        case "iso-8859-2", "latin2": return "iso-8859-2"
        case "windows-1250", "cp1250": return "windows-1250"
        case "windows-1251", "cp1251": return "windows-1251"
        case "windows-1253": return "windows-1253"
        case "windows-1254": return "windows-1254"
        case "shift_jis", "shift-jis", "sjis", "x-sjis": return "shift_jis"
        case "euc-jp": return "euc-jp"
        case "iso-2022-jp": return "iso-2022-jp"
        default: return nil
        }
    }
}

/// windows-1252, hand-written because Foundation refuses the five bytes it leaves undefined,
/// while browsers (and the WHATWG Encoding standard) map them to C1 controls; and because the
/// feed decoder's repair of stray bytes in UTF-8 must be fast and never fail.
public enum Windows1252 {
    private static let high: [UInt32] = [
        0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
        0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x008D, 0x017D, 0x008F,
        0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
        0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178,
    ]

    @inline(__always)
    public static func scalar(_ byte: UInt8) -> UInt32 {
        byte >= 0x80 && byte < 0xA0 ? high[Int(byte - 0x80)] : UInt32(byte)
    }

    public static func decode(_ bytes: ArraySlice<UInt8>) -> String {
        var scalars = String.UnicodeScalarView()
        scalars.reserveCapacity(bytes.count)
        for byte in bytes { scalars.append(Unicode.Scalar(scalar(byte))!) }
        return String(scalars)
    }
}

extension Charset {
    /// `bytes` in `label`'s encoding as UTF-8, through glibc's iconv; nil when iconv does not know
    /// the label. A byte iconv cannot convert is skipped and a sequence cut off at the end dropped,
    /// both reported as `repaired`. Shared by feeds (after their own UTF-8 and windows-1252 paths)
    /// and pages (the labels `HTMLDocument` does not decode itself).
    public static func transcodeToUTF8(_ bytes: UnsafeBufferPointer<UInt8>, from label: String) -> (bytes: [UInt8], repaired: Bool)? {
        let cd = iconv_open("UTF-8", label)
        guard let cd, Int(bitPattern: cd) != -1 else { return nil }
        defer { iconv_close(cd) }
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return ([], false) }
        var out = [UInt8](repeating: 0, count: max(64, bytes.count * 2 + 16))
        var produced = 0, consumed = 0, repaired = false
        while consumed < bytes.count {
            var inLeft = bytes.count - consumed
            var outLeft = out.count - produced
            let result = out.withUnsafeMutableBufferPointer { ob -> Int in
                var inPtr: UnsafeMutablePointer<CChar>? = UnsafeMutableRawPointer(mutating: base + consumed)
                    .assumingMemoryBound(to: CChar.self)
                var outPtr: UnsafeMutablePointer<CChar>? = UnsafeMutableRawPointer(ob.baseAddress! + produced)
                    .assumingMemoryBound(to: CChar.self)
                return iconv(cd, &inPtr, &inLeft, &outPtr, &outLeft)
            }
            let err = errno
            consumed = bytes.count - inLeft
            produced = out.count - outLeft
            if result != -1 { break }
            if err == E2BIG {
                out.append(contentsOf: repeatElement(0, count: out.count))
            } else if err == EILSEQ {
                consumed += 1; repaired = true  // skip the bad byte
            } else {
                repaired = true; break          // EINVAL: truncated sequence at the end
            }
        }
        out.removeSubrange(produced...)
        return (out, repaired)
    }
}
