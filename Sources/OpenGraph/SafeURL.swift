import PulseModel
import WebText
import TextSupport
/// The rules a URL must pass before we store it: absolute http(s), a plausible host, no
/// userinfo, no control or bidi characters, at most 2048 characters.
public enum SafeURL {
    public static let maxLength = 2048

    /// Resolves `reference` against `base` and returns it when acceptable.
    public static func absoluteHTTP(_ reference: String, base: String) -> String? {
        // The HTML URL parser drops tabs and newlines anywhere in a URL before anything else.
        let decoded = String(HTMLEntities.decode(reference).unicodeScalars.filter { $0 != "\t" && $0 != "\n" && $0 != "\r" })
            .trimmingASCIIWhitespace()
        guard !decoded.isEmpty, decoded.count <= maxLength * 2 else { return nil }
        guard !containsUnsafeScalar(decoded) else { return nil }
        guard let resolved = URLResolver.resolve(decoded, against: base) else { return nil }
        return validated(escapeSpacesAndNonASCII(resolved))
    }

    /// Checks an already-absolute URL.
    public static func validated(_ url: String) -> String? {
        guard url.utf8.count <= maxLength, !containsUnsafeScalar(url) else { return nil }
        let parts = URLResolver.split(url)
        guard parts.scheme == "http" || parts.scheme == "https", let authority = parts.authority else { return nil }
        guard !authority.contains("@"), !authority.isEmpty else { return nil }
        var host = Substring(authority)
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return nil }
            let after = host[host.index(after: close)...]
            guard after.isEmpty || (after.hasPrefix(":") && after.dropFirst().allSatisfy(\.isASCIIDigit)) else { return nil }
            return url
        }
        if let colon = host.lastIndex(of: ":") {
            guard host[host.index(after: colon)...].allSatisfy(\.isASCIIDigit) else { return nil }
            host = host[..<colon]
        }
        guard !host.isEmpty, host.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "." || $0 == "-" || $0 == "_" || $0 == "%") }) else { return nil }
        return url
    }

    /// C0/C1 controls and the bidi overrides/isolates/marks used to disguise text.
    public static func isUnsafeScalar(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        return value < 0x20 || (0x7F...0x9F).contains(value) || value == 0x061C || value == 0x200E || value == 0x200F
            || (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value)
    }

    static func containsUnsafeScalar(_ text: String) -> Bool {
        text.unicodeScalars.contains(where: isUnsafeScalar)
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

extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
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
