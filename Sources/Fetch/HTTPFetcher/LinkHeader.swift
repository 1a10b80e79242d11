/// RFC 8288 `Link` header values, as far as WebSub discovery needs them: each link's target and
/// its `rel` types. Hand-rolled because it is small, bounded and never sees more than one header.
public enum LinkHeader {
    public struct Link: Sendable, Equatable {
        public var target: String
        /// Lowercased relation types (`rel="hub self"` gives both).
        public var relations: [String]
    }

    /// Links in order; malformed entries are skipped, parameters other than `rel` ignored.
    public static func parse(_ value: String?) -> [Link] {
        guard let value, value.utf8.count <= 16_384 else { return [] }
        var links: [Link] = []
        var rest = Substring(value)
        while let open = rest.firstIndex(of: "<") {
            guard let close = rest[open...].firstIndex(of: ">") else { break }
            let target = String(rest[rest.index(after: open)..<close])
            // Parameters run to the next top-level comma; quoted strings may hold commas.
            var index = rest.index(after: close)
            var quoted = false
            while index < rest.endIndex {
                let c = rest[index]
                if c == "\"" { quoted.toggle() }
                if c == ",", !quoted { break }
                index = rest.index(after: index)
            }
            let parameters = rest[rest.index(after: close)..<index]
            links.append(Link(target: target.trimmingSpaces, relations: relations(in: parameters)))
            rest = index < rest.endIndex ? rest[rest.index(after: index)...] : ""
        }
        return links
    }

    /// The first target whose relations include `rel`.
    public static func first(_ rel: String, in links: [Link]) -> String? {
        links.first { $0.relations.contains(rel) }?.target
    }

    private static func relations(in parameters: Substring) -> [String] {
        for parameter in parameters.split(separator: ";") {
            let parts = parameter.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, parts[0].trimmingSpaces.lowercased() == "rel" else { continue }
            var raw = parts[1].trimmingSpaces
            if raw.hasPrefix("\""), raw.hasSuffix("\""), raw.count >= 2 { raw = String(raw.dropFirst().dropLast()) }
            return raw.split(separator: " ").map { $0.lowercased() }
        }
        return []
    }
}

extension StringProtocol {
    fileprivate var trimmingSpaces: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
