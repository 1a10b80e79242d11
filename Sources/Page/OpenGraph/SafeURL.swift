import CanonicalURL
import PulseModel
import WebText
import TextSupport
/// Page-side URLs: a reference found in a page (og:image, `<base href>`, an image or link in the
/// readable body) cleaned and resolved as browsers do, then checked by the pipeline's one URL rule
/// (`StoredURL`, the rule feed links and the store use).
public enum SafeURL {
    /// The rule's limit, in characters.
    public static let maxLength = StoredURL.maxLength

    /// Resolves `reference` against `base` and returns it when acceptable.
    public static func absoluteHTTP(_ reference: String, base: String) -> String? {
        // The HTML URL parser drops tabs and newlines anywhere in a URL before anything else.
        let decoded = String(HTMLEntities.decode(reference).unicodeScalars.filter { $0 != "\t" && $0 != "\n" && $0 != "\r" })
            .trimmingASCIIWhitespace()
        guard !decoded.isEmpty, decoded.count <= maxLength * 2 else { return nil }
        // Refused before resolving, which could drop the segment that holds it ("/\u{202E}x/../y").
        guard !decoded.unicodeScalars.contains(where: StoredURL.isUnsafeScalar) else { return nil }
        guard let resolved = URLResolver.resolve(decoded, against: base) else { return nil }
        return StoredURL.check(escapeSpacesAndNonASCII(resolved))
    }

    /// Browsers send spaces and non-ASCII in URLs percent-encoded; store them that way.
    static func escapeSpacesAndNonASCII(_ url: String) -> String {
        guard url.unicodeScalars.contains(where: { !$0.isASCII || $0 == " " || $0 == "\"" || $0 == "<" || $0 == ">" }) else { return url }
        var result = ""
        for scalar in url.unicodeScalars {
            if scalar.isASCII && scalar != " " && scalar != "\"" && scalar != "<" && scalar != ">" {
                result.unicodeScalars.append(scalar)
            } else {
                for byte in String(scalar).utf8 { result += "%" + String(byte, radix: 16, uppercase: true).leftPadded() }
            }
        }
        return result
    }
}

extension String {
    func leftPadded() -> String { count == 1 ? "0" + self : self }
}

/// Image URLs that are obviously not the article's picture.
public enum ImagePlaceholder {
    static let fileMarkers = ["1x1", "spacer", "placeholder", "default-image", "default_image", "defaultimage",
                              "no-image", "no_image", "noimage", "blank.", "transparent.", "pixel.", "clear.gif"]

    static let fileMarkerBytes = fileMarkers.map { Array($0.utf8) }

    public static func isPlaceholder(_ url: String) -> Bool {
        let parts = URLResolver.split(url)
        let path = parts.path.lowercased()
        let file = lastSegment(of: path)
        // Byte searches: Foundation's `contains` bridged both strings to NSString for each marker.
        if file.hasSuffix(".svg") && TextScan.contains(file, "logo") { return true }
        if file == "pixel" || file == "spacer" { return true }
        let marked = TextScan.withBytes(file) { bytes in
            fileMarkerBytes.contains { marker in marker.withUnsafeBufferPointer { TextScan.contains(bytes, $0) } }
        }
        if marked { return true }
        if TextScan.contains(path, "/placeholder") || TextScan.contains(path, "/default-image") { return true }
        return false
    }

    /// `path.split(separator: "/").last`: on the bytes for an ASCII path (a stored URL's path is
    /// percent-encoded ASCII), where splitting by Character cost ~6k instructions an image.
    static func lastSegment(of path: String) -> String {
        let ascii = TextScan.withBytes(path) { bytes -> String? in
            guard !bytes.contains(where: { $0 >= 0x80 }) else { return nil }
            var end = bytes.count
            while end > 0, bytes[end - 1] == 0x2F { end -= 1 }
            var start = end
            while start > 0, bytes[start - 1] != 0x2F { start -= 1 }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        }
        return ascii ?? path.split(separator: "/").last.map(String.init) ?? ""
    }
}
