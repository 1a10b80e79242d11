/// Minimal RFC 3986 section 5.2 reference resolution (merge + remove_dot_segments), enough for
/// feed links, xml:base and image sources. Absolute references are returned untouched (the URL
/// canonicaliser decides their final form). Hand-written because Foundation's URL(string:
/// relativeTo:) rejects many real-world references and differs between platforms.
public enum URLResolver {
    /// True when `s` starts with `scheme:` (ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":").
    public static func hasScheme(_ s: String) -> Bool {
        var first = true
        for c in s.utf8 {
            if c == UInt8(ascii: ":") { return !first }
            let alpha = (c | 0x20) >= 97 && (c | 0x20) <= 122
            let ok = alpha || (!first && ((c >= 48 && c <= 57) || c == 43 || c == 45 || c == 46))
            if !ok { return false }
            first = false
        }
        return false
    }

    struct Parts {
        var scheme: Substring?
        var authority: Substring?
        var path: Substring
        var query: Substring?
    }

    static func split(_ s: String) -> Parts {
        var rest = Substring(s)
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        var scheme: Substring?
        if hasScheme(String(rest)), let colon = rest.firstIndex(of: ":") {
            scheme = rest[..<colon]
            rest = rest[rest.index(after: colon)...]
        }
        var authority: Substring?
        if rest.hasPrefix("//") {
            rest = rest.dropFirst(2)
            let end = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
            authority = rest[..<end]
            rest = rest[end...]
        }
        var query: Substring?
        if let q = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: q)...]
            rest = rest[..<q]
        }
        return Parts(scheme: scheme, authority: authority, path: rest, query: query)
    }

    /// Resolves `reference` against the absolute `base`; nil when the base is not absolute.
    public static func resolve(_ reference: String, against base: String) -> String? {
        if hasScheme(reference) { return reference }
        let b = split(base)
        guard let scheme = b.scheme else { return nil }
        let fragment = reference.firstIndex(of: "#").map { reference[$0...] } ?? ""
        let r = split(reference)
        var authority = b.authority
        var path: String
        var query = r.query
        if let ra = r.authority {
            authority = ra
            path = removeDotSegments(String(r.path))
        } else if r.path.isEmpty {
            path = String(b.path)
            if query == nil { query = b.query }
        } else if r.path.hasPrefix("/") {
            path = removeDotSegments(String(r.path))
        } else {
            let merged: String
            if b.authority != nil && b.path.isEmpty {
                merged = "/" + r.path
            } else if let slash = b.path.lastIndex(of: "/") {
                merged = String(b.path[...slash]) + r.path
            } else {
                merged = String(r.path)
            }
            path = removeDotSegments(merged)
        }
        var out = String(scheme) + ":"
        if let authority { out += "//" + authority }
        out += path
        if let query { out += "?" + query }
        return out + fragment
    }

    static func removeDotSegments(_ path: String) -> String {
        var input = Substring(path)
        var output: [Substring] = []
        let absolute = input.hasPrefix("/")
        if absolute { input = input.dropFirst() }
        let segments = input.split(separator: "/", omittingEmptySubsequences: false)
        for (i, seg) in segments.enumerated() {
            let last = i == segments.count - 1
            if seg == "." {
                if last { output.append("") }
            } else if seg == ".." {
                if !output.isEmpty { output.removeLast() }
                if last { output.append("") }
            } else {
                output.append(seg)
            }
        }
        return (absolute ? "/" : "") + output.joined(separator: "/")
    }
}
