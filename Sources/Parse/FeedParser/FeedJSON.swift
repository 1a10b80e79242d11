import FoundationEssentials

/// Deterministic JSON for a parsed feed (debug CLI, golden tests). Hand-written escaping keeps
/// the key order fixed and avoids JSONSerialization's Foundation round-trips.
public enum FeedJSON {
    public static func dump(_ doc: FeedDocument) -> String {
        String(decoding: dumpUTF8(doc), as: UTF8.self)
    }

    /// The same JSON as UTF-8 bytes, for writing out without a String in between.
    public static func dumpUTF8(_ doc: FeedDocument) -> [UInt8] {
        var o = JSONBytes()
        o.raw("{\"format\": "); o.string(doc.format.rawValue)
        o.raw(", \"recovered\": "); o.raw(doc.recovered ? "true" : "false")
        o.raw(", \"feed\": {\"title\": "); o.string(doc.title)
        o.raw(", \"link\": "); o.string(doc.link)
        o.raw(", \"language\": "); o.string(doc.language)
        o.raw("}, \"items\": [")
        for (i, e) in doc.items.enumerated() {
            if i > 0 { o.raw(", ") }
            o.raw("{\"title\": "); o.string(e.title)
            o.raw(", \"url\": "); o.string(e.url)
            o.raw(", \"guid\": "); o.string(e.guid)
            o.raw(", \"published_at\": "); o.string(e.effectiveDate.map(rfc3339))
            o.raw(", \"author\": "); o.string(e.author)
            o.raw(", \"summary\": "); o.string(e.summary)
            o.raw(", \"content\": "); o.string(e.content)
            o.raw(", \"thumbnail_url\": "); o.string(e.thumbnailURL)
            o.raw(", \"media_type\": "); o.string(e.mediaType)
            o.raw(", \"media_url\": "); o.string(e.mediaURL)
            o.raw(", \"media_mime_type\": "); o.string(e.mediaMimeType)
            o.raw(", \"media_duration\": "); o.raw(e.mediaDurationSeconds.map(String.init) ?? "null")
            o.raw("}")
        }
        o.raw("], \"dropped\": [")
        for (i, d) in doc.dropped.enumerated() {
            if i > 0 { o.raw(", ") }
            o.raw("{\"reason\": "); o.string(d.reason)
            o.raw(", \"title\": "); o.string(d.title)
            o.raw("}")
        }
        o.raw("]}")
        return o.bytes
    }

    public static func error(_ message: String) -> String {
        "{\"error\": " + str(message) + "}"
    }

    static func str(_ s: String?) -> String {
        var o = JSONBytes()
        o.string(s)
        return o.text
    }

    /// JSON text built as UTF-8 bytes: escaping works on the bytes and copies the runs between
    /// escapes whole (appending scalar by scalar to a String was most of `--dump-feed`'s time).
    struct JSONBytes {
        var bytes: [UInt8] = []

        var text: String { String(decoding: bytes, as: UTF8.self) }

        mutating func raw(_ s: String) { bytes.append(contentsOf: s.utf8) }

        mutating func string(_ s: String?) {
            guard var s else { raw("null"); return }
            bytes.append(0x22)
            s.withUTF8 { utf8 in
                guard let base = utf8.baseAddress else { return }
                let count = utf8.count
                var run = 0
                var i = 0
                let memory = UnsafeRawPointer(base)
                while i < count {
                    // Eight bytes at a time while none of them needs a look (see mayNeedEscape).
                    if i + 8 <= count, !Self.mayNeedEscape(memory.loadUnaligned(fromByteOffset: i, as: UInt64.self)) {
                        i += 8
                        continue
                    }
                    let b = base[i]
                    // Most bytes need nothing: one comparison chain per byte, no table, no String.
                    if b >= 0x20 && b != 0x22 && b != 0x5C && b != 0x7F && b != 0xE2 {
                        i += 1
                        continue
                    }
                    var width = 1
                    switch b {
                    case 0x22: flush(base, run, i); raw(#"\""#)
                    case 0x5C: flush(base, run, i); raw(#"\\"#)
                    case 0x0A: flush(base, run, i); raw(#"\n"#)
                    case 0x0D: flush(base, run, i); raw(#"\r"#)
                    case 0x09: flush(base, run, i); raw(#"\t"#)
                    case 0xE2:
                        // U+2028 and U+2029 are valid in JSON but end lines in JavaScript.
                        guard i + 2 < count, base[i + 1] == 0x80, base[i + 2] == 0xA8 || base[i + 2] == 0xA9 else {
                            i += 1
                            continue
                        }
                        flush(base, run, i)
                        raw(base[i + 2] == 0xA8 ? #"\u2028"# : #"\u2029"#)
                        width = 3
                    default:  // the other C0 controls and DEL
                        flush(base, run, i)
                        let hex: [UInt8] = Array("0123456789abcdef".utf8)
                        bytes.append(contentsOf: [0x5C, 0x75, 0x30, 0x30, hex[Int(b >> 4)], hex[Int(b & 0xF)]])
                    }
                    i += width
                    run = i
                }
                flush(base, run, count)
            }
            bytes.append(0x22)
        }

        /// True when one of the eight bytes is a control (< 0x20), `"`, `\\`, DEL, or 0xE2 (the
        /// lead byte of U+2028/U+2029).
        @inline(__always)
        static func mayNeedEscape(_ w: UInt64) -> Bool {
            (WordBytes.some(w, below: 0x20) | WordBytes.some(w, equalTo: 0x22) | WordBytes.some(w, equalTo: 0x5C)
                | WordBytes.some(w, equalTo: 0x7F) | WordBytes.some(w, equalTo: 0xE2)) != 0
        }

        private mutating func flush(_ base: UnsafePointer<UInt8>, _ from: Int, _ to: Int) {
            if to > from { bytes.append(contentsOf: UnsafeBufferPointer(start: base + from, count: to - from)) }
        }
    }

    /// "YYYY-MM-DDTHH:MM:SSZ" (UTC) without DateFormatter.
    public static func rfc3339(_ date: Date) -> String {
        let t = Int(date.timeIntervalSince1970.rounded(.down))
        let days = t >= 0 ? t / 86_400 : (t - 86_399) / 86_400
        let secs = t - days * 86_400
        // H. Hinnant's civil_from_days.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        let y = yoe + era * 400 + (m <= 2 ? 1 : 0)
        func pad(_ v: Int, _ w: Int) -> String {
            let s = String(v)
            return s.count >= w ? s : String(repeating: "0", count: w - s.count) + s
        }
        return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))T\(pad(secs / 3600, 2)):\(pad(secs % 3600 / 60, 2)):\(pad(secs % 60, 2))Z"
    }
}
