import AddressPolicy
import FoundationEssentials
import PulseModel
import TextSupport

// Field rules shared by categories and sources. Each returns nil when the value is fine,
// else a human sentence (without file/line, which the caller adds).

enum FieldRules {
    static let maxSlugLength = 100
    static let maxSourceNameLength = 255  // sources.name varchar(255)
    static let maxCategoryNameLength = 100  // categories.name varchar(100)
    static let maxURLLength = 2048  // contract field cap for URLs

    /// `^[a-z0-9][a-z0-9-]{0,99}$`, on bytes (a non-ASCII byte fails the test like any other).
    static func slugProblem(_ slug: String, field: String = "slug") -> String? {
        let isLowerAlnum = { (byte: UInt8) in
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
        }
        let bytes = slug.utf8
        guard let first = bytes.first, isLowerAlnum(first), bytes.count <= maxSlugLength,
            bytes.allSatisfy({ isLowerAlnum($0) || $0 == UInt8(ascii: "-") })
        else {
            return "\(field) '\(printable(slug))' is invalid: use 1-100 lowercase letters, digits and '-', "
                + "starting with a letter or digit"
        }
        return nil
    }

    /// Bare ISO 639-1 code, `^[a-z]{2}$` (contract invariant 2).
    static func languageProblem(_ language: String) -> String? {
        let bytes = language.utf8
        guard bytes.count == 2, bytes.allSatisfy({ $0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z") }) else {
            return "language '\(printable(language))' is invalid: use a two-letter lowercase ISO 639-1 code such as 'en'"
        }
        return nil
    }

    /// Display names: non-blank, no control or bidi characters, length counted in Unicode
    /// scalars because PostgreSQL's varchar(n) counts characters, not grapheme clusters.
    static func nameProblem(_ name: String, maxLength: Int) -> String? {
        // A printable ASCII byte settles it without a Unicode lookup.
        if !name.utf8.contains(where: { $0 > 0x20 && $0 < 0x7F }), name.unicodeScalars.allSatisfy(isBlank) {
            return "name must not be empty"
        }
        if name.unicodeScalars.contains(where: isControlOrBidi) {
            return "name must not contain control or bidirectional-override characters"
        }
        if name.unicodeScalars.count > maxLength {
            return "name is \(name.unicodeScalars.count) characters long; the maximum is \(maxLength)"
        }
        return nil
    }

    /// An absolute http(s) URL with a host, no userinfo, no whitespace/control/bidi characters.
    /// Hand-written on purpose, on the UTF-8 bytes: Foundation's URL parsing differs across
    /// platforms and accepts things we want refused (userinfo, spaces, `[:::::]`), and
    /// URLComponents was half of --check-config's time while adding one check only (it
    /// percent-encodes whatever the path, query and fragment hold and does not validate IPv6):
    /// that `xn--` labels decode, so it still sees the hosts that have one.
    static func urlProblem(_ url: String, field: String) -> String? {
        var shown: String { printable(url) }  // only errors need it
        if url.isEmpty { return "\(field) must not be empty" }
        if url.utf8.count > maxURLLength, url.unicodeScalars.count > maxURLLength {
            return "\(field) is longer than \(maxURLLength) characters"
        }
        // ASCII first: one pass over the bytes answers for nearly every URL without Unicode
        // property lookups (the generic UTF8View closures it replaced were 2% of --check-config).
        let (isASCII, hasSpaceOrControlByte) = TextScan.withBytes(url) { bytes in
            var ascii = true
            var spaceOrControl = false
            for byte in bytes {
                if byte >= 0x80 { ascii = false } else if byte <= 0x20 || byte == 0x7F { spaceOrControl = true }
            }
            return (ascii, spaceOrControl)
        }
        if isASCII ? hasSpaceOrControlByte
            : url.unicodeScalars.contains(where: { isControlOrBidi($0) || $0.properties.isWhitespace }) {
            return "\(field) '\(shown)' contains whitespace or control characters"
        }
        if !isASCII {
            return "\(field) '\(shown)' contains non-ASCII characters (percent-encode them; use the xn-- form for hosts)"
        }
        let problem: URLProblem? = TextScan.withBytes(url) { bytes in
            guard let authorityStart = bytes.firstIndexOfSchemeSeparator,
                  isHTTPScheme(bytes[..<(authorityStart - 3)]) else { return .notHTTP }
            var authorityEnd = authorityStart
            while authorityEnd < bytes.count, !isAuthorityEnd(bytes[authorityEnd]) { authorityEnd += 1 }
            let authority = bytes[authorityStart..<authorityEnd]
            if authority.contains(UInt8(ascii: "@")) { return .userinfo }
            if let problem = hostProblem(authority) { return .host(problem) }
            return hasPunycodeLabel(authority) ? .punycode : nil
        }
        switch problem {
        case nil: return nil
        case .punycode:
            // An IDNA label must decode; Foundation's IDNA code checks that, for the rare host that has one.
            guard let components = URLComponents(string: url), components.host?.isEmpty == false else {
                return "\(field) '\(shown)' is not a well-formed URL"
            }
            return nil
        case .notHTTP: return "\(field) '\(shown)' must be an absolute http:// or https:// URL"
        // The value is not echoed: it may hold a password.
        case .userinfo: return "\(field) must not contain a user name or password (value not shown)"
        case .host(let hostProblem): return "\(field) '\(shown)' \(hostProblem)"
        }
    }

    private enum URLProblem {
        case notHTTP, userinfo, punycode
        case host(String)
    }

    /// Whether a label of the host starts with the IDNA prefix `xn--`, in any case.
    private static func hasPunycodeLabel(_ authority: UnsafeBufferPointer<UInt8>.SubSequence) -> Bool {
        var atLabelStart = true
        var index = authority.startIndex
        while index < authority.endIndex {
            let byte = authority[index]
            if atLabelStart, byte | 0x20 == UInt8(ascii: "x"), authority.endIndex - index >= 4,
               authority[index + 1] | 0x20 == UInt8(ascii: "n"), authority[index + 2] == UInt8(ascii: "-"),
               authority[index + 3] == UInt8(ascii: "-") {
                return true
            }
            atLabelStart = byte == UInt8(ascii: ".")
            index += 1
        }
        return false
    }

    /// `http` or `https` in any case.
    private static func isHTTPScheme(_ scheme: UnsafeBufferPointer<UInt8>.SubSequence) -> Bool {
        let lowered = scheme.map { $0 | 0x20 }
        return lowered.elementsEqual("http".utf8) || lowered.elementsEqual("https".utf8)
    }

    private static func isAuthorityEnd(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#")
    }

    /// Checks `host[:port]` (host is a DNS name, IPv4 literal or bracketed IPv6 literal).
    private static func hostProblem(_ authority: UnsafeBufferPointer<UInt8>.SubSequence) -> String? {
        var host = authority
        var port: UnsafeBufferPointer<UInt8>.SubSequence?
        if host.first == UInt8(ascii: "[") {
            guard let close = host.firstIndex(of: UInt8(ascii: "]")) else { return "has an unterminated IPv6 host" }
            guard isIPv6Literal(host[(host.startIndex + 1)..<close]) else { return "has an invalid IPv6 host" }
            let after = host[(close + 1)...]
            if !after.isEmpty {
                guard after.first == UInt8(ascii: ":") else { return "has an invalid host" }
                port = after.dropFirst()
            }
            host = host[host.startIndex..<host.startIndex]  // validated above
            if let port, let problem = portProblem(port) { return problem }
            return nil
        }
        if let colon = host.firstIndex(of: UInt8(ascii: ":")) {
            port = host[(colon + 1)...]
            host = host[..<colon]
        }
        if let port, let problem = portProblem(port) { return problem }
        if host.isEmpty { return "has no host" }
        let name = host.last == UInt8(ascii: ".") ? host.dropLast() : host
        guard host.count <= 253, labelsAreValid(name) else { return "has an invalid host name" }
        return nil
    }

    /// Every dot-separated label is 1-63 letters, digits and '-', not starting or ending with '-'.
    /// One pass, no array of labels.
    private static func labelsAreValid(_ name: UnsafeBufferPointer<UInt8>.SubSequence) -> Bool {
        var labelStart = name.startIndex
        var index = name.startIndex
        while true {
            if index == name.endIndex || name[index] == UInt8(ascii: ".") {
                let length = index - labelStart
                guard length > 0, length <= 63, name[labelStart] != UInt8(ascii: "-"),
                      name[index - 1] != UInt8(ascii: "-") else { return false }
                if index == name.endIndex { return true }
                labelStart = index + 1
            } else if !isASCIILetterOrDigit(name[index]) && name[index] != UInt8(ascii: "-") {
                return false
            }
            index += 1
        }
    }

    private static func portProblem(_ port: UnsafeBufferPointer<UInt8>.SubSequence) -> String? {
        guard !port.isEmpty, port.count <= 5, port.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return "has an invalid port" }
        let number = port.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        return (1...65535).contains(number) ? nil : "has an invalid port"
    }

    /// An IPv6 address as the fetcher's address policy reads it (RFC 4291 text forms; zone ids are
    /// refused: they have no meaning in a stored URL).
    private static func isIPv6Literal(_ literal: UnsafeBufferPointer<UInt8>.SubSequence) -> Bool {
        guard !literal.isEmpty, literal.count < 64 else { return false }
        if case .v6? = IPAddress("[" + String(decoding: literal, as: UTF8.self) + "]") { return true }
        return false
    }

    private static func isASCIILetterOrDigit(_ byte: UInt8) -> Bool {
        let lower = byte | 0x20
        return (lower >= UInt8(ascii: "a") && lower <= UInt8(ascii: "z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
    }

    /// The scalars of Foundation's CharacterSet.whitespacesAndNewlines on Linux (the White_Space
    /// property and U+200B), read without building a CharacterSet.
    static func isBlank(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isWhitespace || scalar == "\u{200B}"
    }

    /// Any `HiddenCharacter`: controls, line separators, direction controls, invisible characters.
    static func isControlOrBidi(_ scalar: Unicode.Scalar) -> Bool { HiddenCharacter.isHidden(scalar) }

    /// Echoes a bad value in a message without letting control characters into logs.
    static func printable(_ value: String) -> String {
        if value.utf8.count <= 120, !value.unicodeScalars.contains(where: isControlOrBidi) { return value }
        let cleaned = String(String.UnicodeScalarView(value.unicodeScalars.map { isControlOrBidi($0) ? "?" : $0 }))
        return cleaned.count > 120 ? String(cleaned.prefix(120)) + "..." : cleaned
    }
}

extension UnsafeBufferPointer<UInt8> {
    /// The index just past the first `://`.
    fileprivate var firstIndexOfSchemeSeparator: Int? {
        var index = 0
        while index + 3 <= count {
            if self[index] == UInt8(ascii: ":"), self[index + 1] == UInt8(ascii: "/"), self[index + 2] == UInt8(ascii: "/") {
                return index + 3
            }
            index += 1
        }
        return nil
    }
}
