import CanonicalURL
import PulseModel
import TextSupport

/// Page-side reference resolution: HTML's URL clean-up around the pipeline's one RFC 3986
/// resolver (CanonicalURL's URLReference), which does the splitting, merging and dot segments.
public enum URLResolver {
    public typealias Components = URLReference.Parts

    public static func split(_ reference: String) -> Components {
        URLReference.split(reference)
    }

    /// Resolves `reference` against `base`; nil when neither has a scheme. An http(s) URL with a
    /// host and an empty path gets "/" as browsers give it.
    public static func resolve(_ reference: String, against base: String) -> String? {
        guard let resolved = URLReference.resolve(clean(reference), against: clean(base)) else { return nil }
        var parts = URLReference.split(resolved)
        guard parts.scheme == "http" || parts.scheme == "https", parts.authority != nil, parts.path.isEmpty else { return resolved }
        parts.path = "/"
        return parts.string
    }

    /// HTML URL parsing strips surrounding whitespace and drops tabs and newlines inside;
    /// browsers also read `\` as `/` in http(s) URLs.
    static func clean(_ text: String) -> String {
        // Most URLs hold nothing to clean: no tab, line break or backslash, no space at either
        // end. They are returned as they are (rebuilding them scalar by scalar cost ~6k
        // instructions a URL).
        let untouched = TextScan.withBytes(text) { bytes -> Bool in
            guard let first = bytes.first, let last = bytes.last,
                  first != 0x20, first != 0x0C, last != 0x20, last != 0x0C else { return bytes.isEmpty }
            return !bytes.contains { $0 == 0x09 || $0 == 0x0A || $0 == 0x0D || $0 == 0x5C }
        }
        if untouched { return text }
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars where scalar != "\t" && scalar != "\n" && scalar != "\r" {
            scalars.append(scalar == "\\" ? "/" : scalar)
        }
        return String(scalars).trimmingASCIIWhitespace()
    }
}

extension String {
    public func trimmingASCIIWhitespace() -> String {
        let isSpace: (Unicode.Scalar) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\u{0C}" }
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !isSpace($0) }) else { return "" }
        let last = scalars.lastIndex(where: { !isSpace($0) })!
        return String(scalars[first...last])
    }
}
