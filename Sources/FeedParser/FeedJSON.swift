import Foundation

/// Deterministic JSON for a parsed feed (debug CLI, golden tests). Hand-written escaping keeps
/// the key order fixed and avoids JSONSerialization's Foundation round-trips.
public enum FeedJSON {
    public static func dump(_ doc: FeedDocument) -> String {
        var o = "{\"format\": " + str(doc.format.rawValue) + ", \"recovered\": " + (doc.recovered ? "true" : "false")
        o += ", \"feed\": {\"title\": " + str(doc.title) + ", \"link\": " + str(doc.link)
        o += ", \"language\": " + str(doc.language) + "}, \"items\": ["
        for (i, e) in doc.items.enumerated() {
            if i > 0 { o += ", " }
            o += "{\"title\": " + str(e.title) + ", \"url\": " + str(e.url) + ", \"guid\": " + str(e.guid)
            o += ", \"published_at\": " + str(e.effectiveDate.map(rfc3339))
            o += ", \"author\": " + str(e.author) + ", \"summary\": " + str(e.summary)
            o += ", \"content\": " + str(e.content) + ", \"thumbnail_url\": " + str(e.thumbnailURL)
            o += ", \"media_type\": " + str(e.mediaType) + ", \"media_url\": " + str(e.mediaURL)
            o += ", \"media_mime_type\": " + str(e.mediaMimeType)
            o += ", \"media_duration\": " + (e.mediaDurationSeconds.map(String.init) ?? "null") + "}"
        }
        o += "], \"dropped\": ["
        for (i, d) in doc.dropped.enumerated() {
            if i > 0 { o += ", " }
            o += "{\"reason\": " + str(d.reason) + ", \"title\": " + str(d.title) + "}"
        }
        return o + "]}"
    }

    public static func error(_ message: String) -> String {
        "{\"error\": " + str(message) + "}"
    }

    static func str(_ s: String?) -> String {
        guard let s else { return "null" }
        var out = "\""
        out.reserveCapacity(s.utf8.count + 2)
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{2028}": out += "\\u2028"
            case "\u{2029}": out += "\\u2029"
            default:
                if u.value < 0x20 || u.value == 0x7F {
                    let hex = String(u.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        return out + "\""
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
