/// RFC 3986 reference resolution (section 5.2), hand-written because Foundation's URL
/// resolution differs across platforms and we must not depend on URLSession-era types.
public enum URLResolver {
    public struct Components: Equatable, Sendable {
        public var scheme: String?
        public var authority: String?
        public var path: String
        public var query: String?
        public var fragment: String?
    }

    /// Splits per RFC 3986 Appendix B: `^(([^:/?#]+):)?(//([^/?#]*))?([^?#]*)(\?([^#]*))?(#(.*))?`.
    public static func split(_ reference: String) -> Components {
        var rest = Substring(reference)
        var result = Components(scheme: nil, authority: nil, path: "", query: nil, fragment: nil)
        if let hash = rest.firstIndex(of: "#") {
            result.fragment = String(rest[rest.index(after: hash)...])
            rest = rest[..<hash]
        }
        if let question = rest.firstIndex(of: "?") {
            result.query = String(rest[rest.index(after: question)...])
            rest = rest[..<question]
        }
        if let colon = rest.firstIndex(of: ":"), colon != rest.startIndex {
            let candidate = rest[..<colon]
            if !candidate.contains("/"), isValidScheme(candidate) {
                result.scheme = candidate.lowercased()
                rest = rest[rest.index(after: colon)...]
            }
        }
        if rest.hasPrefix("//") {
            let afterSlashes = rest.dropFirst(2)
            let end = afterSlashes.firstIndex(of: "/") ?? afterSlashes.endIndex
            result.authority = String(afterSlashes[..<end])
            rest = afterSlashes[end...]
        }
        result.path = String(rest)
        return result
    }

    private static func isValidScheme(_ text: Substring) -> Bool {
        guard let first = text.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic else { return false }
        return text.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "+" || $0 == "-" || $0 == ".") }
    }

    /// Resolves `reference` against the absolute `base`; nil when the base has no scheme.
    public static func resolve(_ reference: String, against base: String) -> String? {
        let ref = split(clean(reference))
        let baseParts = split(clean(base))
        guard baseParts.scheme != nil else { return ref.scheme != nil ? recompose(normalized(ref)) : nil }
        var target = Components(scheme: nil, authority: nil, path: "", query: nil, fragment: ref.fragment)
        if let scheme = ref.scheme {
            target.scheme = scheme
            target.authority = ref.authority
            target.path = removeDotSegments(ref.path)
            target.query = ref.query
        } else {
            if ref.authority != nil {
                target.authority = ref.authority
                target.path = removeDotSegments(ref.path)
                target.query = ref.query
            } else {
                if ref.path.isEmpty {
                    target.path = baseParts.path
                    target.query = ref.query ?? baseParts.query
                } else {
                    if ref.path.hasPrefix("/") {
                        target.path = removeDotSegments(ref.path)
                    } else {
                        target.path = removeDotSegments(merge(base: baseParts, path: ref.path))
                    }
                    target.query = ref.query
                }
                target.authority = baseParts.authority
            }
            target.scheme = baseParts.scheme
        }
        return recompose(normalized(target))
    }

    /// HTML URL parsing strips surrounding whitespace and drops tabs and newlines inside;
    /// browsers also read `\` as `/` in http(s) URLs.
    static func clean(_ text: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars where scalar != "\t" && scalar != "\n" && scalar != "\r" {
            scalars.append(scalar == "\\" ? "/" : scalar)
        }
        return String(scalars).trimmingASCIIWhitespace()
    }

    private static func normalized(_ parts: Components) -> Components {
        var parts = parts
        if (parts.scheme == "http" || parts.scheme == "https"), parts.authority != nil, parts.path.isEmpty {
            parts.path = "/"
        }
        return parts
    }

    private static func merge(base: Components, path: String) -> String {
        if base.authority != nil && base.path.isEmpty { return "/" + path }
        guard let slash = base.path.lastIndex(of: "/") else { return path }
        return String(base.path[...slash]) + path
    }

    /// RFC 3986 section 5.2.4.
    public static func removeDotSegments(_ path: String) -> String {
        var input = Substring(path)
        var outputString = ""
        while !input.isEmpty {
            if input.hasPrefix("../") { input = input.dropFirst(3) }
            else if input.hasPrefix("./") { input = input.dropFirst(2) }
            else if input.hasPrefix("/./") { input = input.dropFirst(2) }
            else if input == "/." { input = "/" }
            else if input.hasPrefix("/../") {
                input = input.dropFirst(3)
                removeLastSegment(&outputString)
            } else if input == "/.." {
                input = "/"
                removeLastSegment(&outputString)
            } else if input == "." || input == ".." {
                input = ""
            } else {
                let start = input.hasPrefix("/") ? input.index(after: input.startIndex) : input.startIndex
                let end = input[start...].firstIndex(of: "/") ?? input.endIndex
                outputString += input[..<end]
                input = input[end...]
            }
        }
        return outputString
    }

    private static func removeLastSegment(_ output: inout String) {
        if let slash = output.lastIndex(of: "/") { output.removeSubrange(slash...) } else { output = "" }
    }

    static func recompose(_ parts: Components) -> String {
        var result = ""
        if let scheme = parts.scheme { result += scheme + ":" }
        if let authority = parts.authority { result += "//" + authority }
        result += parts.path
        if let query = parts.query { result += "?" + query }
        if let fragment = parts.fragment { result += "#" + fragment }
        return result
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
