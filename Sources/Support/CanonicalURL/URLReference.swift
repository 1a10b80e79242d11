// RFC 3986 §5.2 reference resolution, hand-written because Foundation's URL(string:relativeTo:)
// follows a different (WHATWG/CFURL) grammar and the canonicaliser must stay Foundation-free.

/// The five components of RFC 3986 Appendix B; nil means "undefined", "" means "empty".
struct URIComponents: Equatable, Sendable {
    var scheme: Substring?
    var authority: Substring?
    var path: Substring
    var query: Substring?
    var fragment: Substring?

    /// Appendix B's regular expression, `^(([^:/?#]+):)?(//([^/?#]*))?([^?#]*)(\?([^#]*))?(#(.*))?`,
    /// except that a scheme must be `ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )` to count.
    init(_ s: Substring) {
        if s.utf8.allSatisfy({ $0 < 0x80 }) { self.init(ascii: s) } else { self.init(characters: s) }
    }

    /// The same split on the bytes of ASCII text, where bytes, scalars and Characters give the same
    /// answers (a CR LF pair is one Character, but never a delimiter). Character by Character it
    /// was ~100 instructions a character, and every feed link and page URL goes through here.
    init(ascii s: Substring) {
        func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) &- 0x61 < 26 }
        var rest = s
        scheme = nil
        if let colon = s.utf8.firstIndex(where: { $0 == 0x3A || $0 == 0x2F || $0 == 0x3F || $0 == 0x23 }), s.utf8[colon] == 0x3A {
            let candidate = s.utf8[..<colon]
            if let first = candidate.first, isLetter(first),
               candidate.allSatisfy({ isLetter($0) || $0 &- 0x30 < 10 || $0 == 0x2B || $0 == 0x2D || $0 == 0x2E }) {
                scheme = s[..<colon]
                rest = s[s.utf8.index(after: colon)...]
            }
        }
        if let hash = rest.utf8.firstIndex(of: 0x23) {
            fragment = rest[rest.utf8.index(after: hash)...]
            rest = rest[..<hash]
        }
        if let question = rest.utf8.firstIndex(of: 0x3F) {
            query = rest[rest.utf8.index(after: question)...]
            rest = rest[..<question]
        }
        if rest.utf8.starts(with: [0x2F, 0x2F]) {
            let afterSlashes = rest[rest.utf8.index(rest.startIndex, offsetBy: 2)...]
            let end = afterSlashes.utf8.firstIndex(of: 0x2F) ?? afterSlashes.endIndex
            authority = afterSlashes[..<end]
            rest = afterSlashes[end...]
        }
        path = rest
    }

    /// The split Character by Character, for text that is not all ASCII.
    init(characters s: Substring) {
        var rest = s
        scheme = nil
        if let colon = rest.firstIndex(where: { ":/?#".contains($0) }), rest[colon] == ":" {
            let candidate = rest[..<colon]
            if let first = candidate.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic,
               candidate.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || "0123456789+-.".unicodeScalars.contains($0)) }) {
                scheme = candidate
                rest = rest[rest.index(after: colon)...]
            }
        }
        if let hash = rest.firstIndex(of: "#") {
            fragment = rest[rest.index(after: hash)...]
            rest = rest[..<hash]
        }
        if let question = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: question)...]
            rest = rest[..<question]
        }
        if rest.hasPrefix("//") {
            let afterSlashes = rest.dropFirst(2)
            let end = afterSlashes.firstIndex(of: "/") ?? afterSlashes.endIndex
            authority = afterSlashes[..<end]
            rest = afterSlashes[end...]
        }
        path = rest
    }

    init(scheme: Substring?, authority: Substring?, path: Substring, query: Substring?, fragment: Substring?) {
        (self.scheme, self.authority, self.path, self.query, self.fragment) = (scheme, authority, path, query, fragment)
    }

    /// §5.3 component recomposition.
    var recomposed: String {
        var out = ""
        if let scheme { out += scheme.lowercased() + ":" }
        if let authority { out += "//" + authority }
        out += path
        if let query { out += "?" + query }
        if let fragment { out += "#" + fragment }
        return out
    }

    /// §5.2.2 (strict: a reference with a scheme is taken as absolute even if it matches the base's).
    func resolved(against base: URIComponents) -> URIComponents {
        if scheme != nil {
            return URIComponents(scheme: scheme, authority: authority, path: Self.removeDotSegments(path),
                                 query: query, fragment: fragment)
        }
        if authority != nil {
            return URIComponents(scheme: base.scheme, authority: authority, path: Self.removeDotSegments(path),
                                 query: query, fragment: fragment)
        }
        if path.isEmpty {
            return URIComponents(scheme: base.scheme, authority: base.authority, path: base.path,
                                 query: query ?? base.query, fragment: fragment)
        }
        let merged = path.hasPrefix("/") ? path : Self.merge(base: base, path: path)
        return URIComponents(scheme: base.scheme, authority: base.authority, path: Self.removeDotSegments(merged),
                             query: query, fragment: fragment)
    }

    /// §5.2.3.
    static func merge(base: URIComponents, path: Substring) -> Substring {
        if base.authority != nil && base.path.isEmpty { return "/" + path }
        guard let slash = base.path.lastIndex(of: "/") else { return path }
        return base.path[...slash] + path
    }

    /// §5.2.4, on whole segments: "." and ".." are dropped or pop the previous segment.
    static func removeDotSegments(_ path: Substring) -> Substring {
        // Every rule below needs a segment that starts with "."; without one, each step moves a
        // segment to the output unchanged. Most paths have none, and the walk by Character cost
        // ~18k instructions a URL.
        if !hasSegmentStartingWithDot(path) { return path }
        var input = path
        var output: [Substring] = []
        while !input.isEmpty {
            if input.hasPrefix("../") { input = input.dropFirst(3) }
            else if input.hasPrefix("./") { input = input.dropFirst(2) }
            else if input.hasPrefix("/./") { input = input.dropFirst(2) }
            else if input == "/." { input = "/" }
            else if input.hasPrefix("/../") {
                input = input.dropFirst(3)
                if !output.isEmpty { output.removeLast() }
            } else if input == "/.." {
                input = "/"
                if !output.isEmpty { output.removeLast() }
            } else if input == "." || input == ".." {
                input = ""
            } else {
                // Move the first segment (with its leading "/", if any) to the output.
                let start = input.hasPrefix("/") ? input.index(after: input.startIndex) : input.startIndex
                let end = input[start...].firstIndex(of: "/") ?? input.endIndex
                output.append(input[..<end])
                input = input[end...]
            }
        }
        return Substring(output.joined())
    }

    static func hasSegmentStartingWithDot(_ path: Substring) -> Bool {
        var previous: UInt8 = 0x2F  // the path's start counts as a segment start
        for byte in path.utf8 {
            if byte == 0x2E && previous == 0x2F { return true }
            previous = byte
        }
        return false
    }
}

extension StoredURL {
    /// Resolves a (possibly relative) link found in a feed or page against the document's URL
    /// (RFC 3986 §5.2). Returns nil unless `base` is an absolute http(s) URL with a host and the
    /// result is one too; the result still has to pass `validate` before it is stored.
    public static func resolve(_ reference: String, against base: String) -> String? {
        let baseText = trimWhitespace(base)
        let baseParts = URIComponents(Substring(baseText))
        guard Self.isWebWithHost(baseParts) else { return nil }
        let refText = trimWhitespace(reference)
        let target = URIComponents(Substring(refText)).resolved(against: baseParts)
        guard Self.isWebWithHost(target) else { return nil }
        return target.recomposed
    }

    private static func isWebWithHost(_ parts: URIComponents) -> Bool {
        guard let scheme = parts.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let authority = parts.authority else { return false }
        let hostPort = authority.split(separator: "@", omittingEmptySubsequences: false).last ?? ""
        return !(hostPort.isEmpty || hostPort.hasPrefix(":"))
    }
}

/// The pipeline's one RFC 3986 reference resolver: feed links and xml:base (FeedParser), page
/// metadata and readable-body links (OpenGraph, Readability) and stored URLs all resolve here.
public enum URLReference {
    /// The five components of a reference (Appendix B); nil means "undefined", "" "empty".
    /// The scheme is lowercased.
    public struct Parts: Equatable, Sendable {
        public var scheme: String?
        public var authority: String?
        public var path: String
        public var query: String?
        public var fragment: String?

        public init(scheme: String?, authority: String?, path: String, query: String?, fragment: String?) {
            (self.scheme, self.authority, self.path, self.query, self.fragment) = (scheme, authority, path, query, fragment)
        }

        /// §5.3 recomposition.
        public var string: String {
            let sub: (String?) -> Substring? = { $0.map { Substring($0) } }
            return URIComponents(scheme: sub(scheme), authority: sub(authority), path: Substring(path),
                                 query: sub(query), fragment: sub(fragment)).recomposed
        }
    }

    public static func split(_ reference: String) -> Parts {
        let c = URIComponents(Substring(reference))
        return Parts(scheme: c.scheme?.lowercased(), authority: c.authority.map(String.init), path: String(c.path),
                     query: c.query.map(String.init), fragment: c.fragment.map(String.init))
    }

    /// True when `s` starts with `scheme:` (ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":").
    /// One pass over the bytes, no allocation: it runs on every feed link.
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

    /// Resolves `reference` against `base` (§5.2, strict). A reference with a scheme stands on its
    /// own (dot segments removed); nil when neither has a scheme. No trimming, no scheme rules:
    /// callers apply theirs (`StoredURL.resolve` for stored URLs).
    public static func resolve(_ reference: String, against base: String) -> String? {
        let ref = URIComponents(Substring(reference))
        if ref.scheme != nil { return ref.resolved(against: ref).recomposed }
        let baseParts = URIComponents(Substring(base))
        guard baseParts.scheme != nil else { return nil }
        return ref.resolved(against: baseParts).recomposed
    }
}
