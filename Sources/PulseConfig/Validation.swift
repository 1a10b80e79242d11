import Foundation

// Field rules shared by categories and sources. Each returns nil when the value is fine,
// else a human sentence (without file/line, which the caller adds).

enum FieldRules {
    static let maxSlugLength = 100
    static let maxSourceNameLength = 255  // sources.name varchar(255)
    static let maxCategoryNameLength = 100  // categories.name varchar(100)
    static let maxURLLength = 2048  // contract field cap for URLs

    /// `^[a-z0-9][a-z0-9-]{0,99}$`
    static func slugProblem(_ slug: String, field: String = "slug") -> String? {
        let scalars = Array(slug.unicodeScalars)
        let isLowerAlnum = { (s: Unicode.Scalar) in ("a"..."z").contains(s) || ("0"..."9").contains(s) }
        guard let first = scalars.first, isLowerAlnum(first), scalars.count <= maxSlugLength,
            scalars.allSatisfy({ isLowerAlnum($0) || $0 == "-" })
        else {
            return "\(field) '\(printable(slug))' is invalid: use 1-100 lowercase letters, digits and '-', "
                + "starting with a letter or digit"
        }
        return nil
    }

    /// Bare ISO 639-1 code, `^[a-z]{2}$` (contract invariant 2).
    static func languageProblem(_ language: String) -> String? {
        let scalars = Array(language.unicodeScalars)
        guard scalars.count == 2, scalars.allSatisfy({ ("a"..."z").contains($0) }) else {
            return "language '\(printable(language))' is invalid: use a two-letter lowercase ISO 639-1 code such as 'en'"
        }
        return nil
    }

    /// Display names: non-blank, no control or bidi characters, length counted in Unicode
    /// scalars because PostgreSQL's varchar(n) counts characters, not grapheme clusters.
    static func nameProblem(_ name: String, maxLength: Int) -> String? {
        if name.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { return "name must not be empty" }
        if name.unicodeScalars.contains(where: isControlOrBidi) {
            return "name must not contain control or bidirectional-override characters"
        }
        if name.unicodeScalars.count > maxLength {
            return "name is \(name.unicodeScalars.count) characters long; the maximum is \(maxLength)"
        }
        return nil
    }

    /// An absolute http(s) URL with a host, no userinfo, no whitespace/control/bidi characters.
    /// Hand-written on purpose: Foundation's URL parsing differs across platforms and accepts
    /// things we want refused (userinfo, spaces); URLComponents is used as a second opinion.
    static func urlProblem(_ url: String, field: String) -> String? {
        var shown: String { printable(url) }  // only errors need it
        if url.isEmpty { return "\(field) must not be empty" }
        if url.unicodeScalars.count > maxURLLength {
            return "\(field) is longer than \(maxURLLength) characters"
        }
        // ASCII first: a byte test answers for nearly every URL without Unicode property lookups.
        let isASCII = url.utf8.allSatisfy { $0 < 0x80 }
        if isASCII ? url.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F })
            : url.unicodeScalars.contains(where: { isControlOrBidi($0) || $0.properties.isWhitespace }) {
            return "\(field) '\(shown)' contains whitespace or control characters"
        }
        if !isASCII {
            return "\(field) '\(shown)' contains non-ASCII characters (percent-encode them; use the xn-- form for hosts)"
        }
        let lowered = url.lowercased()
        guard let schemeEnd = lowered.firstRange(of: "://"),
            ["http", "https"].contains(String(lowered[..<schemeEnd.lowerBound]))
        else {
            return "\(field) '\(shown)' must be an absolute http:// or https:// URL"
        }
        let rest = url[schemeEnd.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if authority.contains("@") {
            // The value is not echoed: it may hold a password.
            return "\(field) must not contain a user name or password (value not shown)"
        }
        guard let hostProblem = hostProblem(String(authority)) else {
            guard let components = URLComponents(string: url), components.host?.isEmpty == false else {
                return "\(field) '\(shown)' is not a well-formed URL"
            }
            return nil
        }
        return "\(field) '\(shown)' \(hostProblem)"
    }

    /// Checks `host[:port]` (host is a DNS name, IPv4 literal or bracketed IPv6 literal).
    private static func hostProblem(_ authority: String) -> String? {
        var host = Substring(authority)
        var port: Substring?
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return "has an unterminated IPv6 host" }
            let literal = host[host.index(after: host.startIndex)..<close]
            guard !literal.isEmpty, literal.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else {
                return "has an invalid IPv6 host"
            }
            let after = host[host.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return "has an invalid host" }
                port = after.dropFirst()
            }
            host = "ip6"  // validated above
        } else if let colon = host.firstIndex(of: ":") {
            port = host[host.index(after: colon)...]
            host = host[..<colon]
        }
        if let port {
            guard !port.isEmpty, port.count <= 5, port.allSatisfy(\.isASCIIDigit), let number = Int(port),
                (1...65535).contains(number)
            else { return "has an invalid port" }
        }
        if host.isEmpty { return "has no host" }
        let labels = host.hasSuffix(".") ? host.dropLast().split(separator: ".", omittingEmptySubsequences: false)
                                         : host.split(separator: ".", omittingEmptySubsequences: false)
        let labelsValid = labels.allSatisfy { label in
            !label.isEmpty && label.count <= 63 && label.first != "-" && label.last != "-"
                && label.allSatisfy { $0.isASCIILetterOrDigit || $0 == "-" }
        }
        guard labelsValid, host.count <= 253 else { return "has an invalid host name" }
        return nil
    }

    /// C0/C1 controls and the Unicode bidi controls (U+200E/F, U+202A-E, U+2066-9, U+061C).
    static func isControlOrBidi(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// Echoes a bad value in a message without letting control characters into logs.
    static func printable(_ value: String) -> String {
        let cleaned = String(String.UnicodeScalarView(value.unicodeScalars.map { isControlOrBidi($0) ? "?" : $0 }))
        return cleaned.count > 120 ? String(cleaned.prefix(120)) + "..." : cleaned
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
    fileprivate var isASCIILetterOrDigit: Bool { isASCII && (isLetter || isNumber) }
}
