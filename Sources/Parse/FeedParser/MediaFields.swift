internal import CanonicalURL
internal import PulseModel

/// Small parsers for media metadata: durations and MIME types.
public enum MediaFields {
    /// itunes:duration / media:content@duration: "HH:MM:SS", "MM:SS", "SS", fractional seconds.
    /// Capped at 24 hours; nil when unparseable or zero.
    public static func duration(_ raw: String?) -> Int? {
        guard let raw else { return nil }
        let s = raw.trimming(" \t\r\n")
        guard !s.isEmpty, s.count <= 20 else { return nil }
        let parts = s.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count <= 3 else { return nil }
        var total = 0.0
        for (i, p) in parts.enumerated() {
            let isLast = i == parts.count - 1
            guard !p.isEmpty, p.allSatisfy({ $0.isASCIIDigitChar || (isLast && $0 == ".") }),
                  let v = Double(p), v.isFinite else { return nil }
            if i > 0, v >= 60 { return nil }
            total = total * 60 + v
        }
        let seconds = Int(total.rounded())
        guard seconds > 0 else { return nil }
        return min(seconds, FieldLimits.mediaDurationSeconds)
    }

    /// Lowercased `type/subtype` (parameters dropped) when it looks like a MIME type and fits
    /// the 50-character column; otherwise nil.
    public static func mimeType(_ raw: String?) -> String? {
        guard let raw else { return nil }
        let base = raw.split(separator: ";", maxSplits: 1).first.map(String.init) ?? ""
        let s = base.trimming(" \t\r\n").lowercased()
        guard s.utf8.count <= FieldLimits.mediaMimeType else { return nil }
        let halves = s.split(separator: "/", omittingEmptySubsequences: false)
        guard halves.count == 2 else { return nil }
        func token(_ t: Substring) -> Bool {
            !t.isEmpty && t.utf8.allSatisfy { c in
                (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || "!#$&^_.+-".utf8.contains(c)
            }
        }
        return token(halves[0]) && token(halves[1]) ? s : nil
    }

    /// "podcast" / "video" for an enclosure, from its MIME type, medium or file extension.
    static func kind(type: String?, medium: String?, url: String) -> String? {
        if let t = type?.lowercased() {
            if t.hasPrefix("audio/") { return "podcast" }
            if t.hasPrefix("video/") { return "video" }
            if t.hasPrefix("image/") { return nil }
        }
        switch medium?.lowercased() {
        case "audio": return "podcast"
        case "video": return "video"
        case "image": return nil
        default: break
        }
        let path = URLReference.split(url).path.lowercased()
        for ext in [".mp3", ".m4a", ".aac", ".ogg", ".oga", ".opus", ".wav", ".flac"] where path.hasSuffix(ext) { return "podcast" }
        for ext in [".mp4", ".m4v", ".mov", ".webm", ".mkv"] where path.hasSuffix(ext) { return "video" }
        return nil
    }

    static func isImage(type: String?, medium: String?, url: String) -> Bool {
        if let t = type?.lowercased() { return t.hasPrefix("image/") }
        if let m = medium?.lowercased() { return m == "image" }
        let path = URLReference.split(url).path.lowercased()
        return [".jpg", ".jpeg", ".png", ".gif", ".webp", ".avif"].contains { path.hasSuffix($0) }
    }
}

extension Character {
    var isASCIIDigitChar: Bool { ("0"..."9").contains(self) }
}
