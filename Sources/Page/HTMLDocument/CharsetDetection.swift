import FoundationEssentials
import WebText

/// Picks the encoding of a page's bytes the way browsers do, in this order: a byte-order mark,
/// the HTTP `Content-Type` charset, then `<meta charset>` / `<meta http-equiv=Content-Type>`
/// (scanned up to `metaScanLimit` bytes, not just the spec's first 1024, because CMS pages
/// often push the meta tag past long inline scripts). The BOM goes first because the WHATWG
/// decode algorithm lets it override the transport layer.
public enum CharsetDetection {
    static let metaScanLimit = 64 * 1024

    /// The WHATWG label of the chosen encoding, e.g. "utf-8", "windows-1252".
    public static func detect(_ bytes: [UInt8], contentType: String?) -> String {
        if let bom = byteOrderMark(bytes) { return bom.label }
        if let header = contentType.flatMap(charsetParameter), let label = normalize(header) {
            return label
        }
        if let meta = metaCharset(bytes), let label = normalize(meta) {
            // A page cannot declare UTF-16 from inside itself: it would not be readable as ASCII.
            return label.hasPrefix("utf-16") ? "utf-8" : label
        }
        return looksLikeLegacyBytes(bytes) ? "windows-1252" : "utf-8"
    }

    /// Decodes with the label; unknown labels and failed conversions fall back to UTF-8 with
    /// invalid sequences replaced by U+FFFD.
    public static func decode(_ bytes: [UInt8], label: String) -> String {
        let bomLength = byteOrderMark(bytes)?.length ?? 0
        let body = bytes[bomLength...]
        switch label {
        case "utf-8":
            return String(decoding: body, as: UTF8.self)
        case "windows-1252":
            return Windows1252.decode(body)
        default:
            // The other labels `Charset.normalize` and the byte-order marks give, through iconv as
            // feeds are (FeedParser's CharsetDecoder).
            if let converted = body.withUnsafeBufferPointer({ Charset.transcodeToUTF8($0, from: label) }) {
                return String(decoding: converted.bytes, as: UTF8.self)
            }
            return String(decoding: body, as: UTF8.self)
        }
    }

    /// Lower-cased, trimmed and mapped to the label `decode` understands; nil when unknown.
    static func normalize(_ raw: String) -> String? { Charset.normalize(raw) }

    static func byteOrderMark(_ bytes: [UInt8]) -> (label: String, length: Int)? { Charset.byteOrderMark(bytes) }

    /// `charset=` from a Content-Type value (header or meta content), quotes allowed.
    static func charsetParameter(_ value: String) -> String? { Charset.parameter(value) }

    /// The first charset a `<meta>` tag declares before `<body` (comments skipped).
    static func metaCharset(_ bytes: [UInt8]) -> String? {
        let end = min(bytes.count, metaScanLimit)
        var scanner = TagScanner(bytes: bytes, end: end)
        while let tag = scanner.nextTag() {
            if tag.name == "body" { return nil }
            guard tag.name == "meta" else { continue }
            if let charset = tag.attributes["charset"], !charset.isEmpty { return charset }
            if tag.attributes["http-equiv"]?.lowercased() == "content-type",
               let content = tag.attributes["content"], let charset = charsetParameter(content) {
                return charset
            }
        }
        return nil
    }

    /// Invalid UTF-8 with no valid multi-byte sequence at all is almost surely a legacy
    /// single-byte page; invalid UTF-8 mixed with valid sequences is UTF-8 with damage.
    static func looksLikeLegacyBytes(_ bytes: [UInt8]) -> Bool {
        var index = 0
        var sawInvalid = false
        while index < bytes.count {
            let byte = bytes[index]
            if byte < 0x80 { index += 1; continue }
            let length = byte >= 0xF0 && byte <= 0xF4 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC2 && byte < 0xE0 ? 2 : 0
            if length > 0, index + length <= bytes.count,
               (1..<length).allSatisfy({ bytes[index + $0] & 0xC0 == 0x80 }) {
                return false
            }
            sawInvalid = true
            index += 1
        }
        return sawInvalid
    }
}
