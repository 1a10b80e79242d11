import AddressPolicy
import CanonicalURL
import PulseModel
import TextSupport

// Field rules shared by categories and sources. Each returns nil when the value is fine,
// else a human sentence (without file/line, which the caller adds).

enum FieldRules {
    static let maxSlugLength = 100
    static let maxSourceNameLength = 255  // sources.name varchar(255)
    static let maxCategoryNameLength = 100  // categories.name varchar(100)

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
        if !name.utf8.contains(where: { $0 > 0x20 && $0 < 0x7F }), name.unicodeScalars.allSatisfy(TextScan.isWhitespace) {
            return "name must not be empty"
        }
        if name.unicodeScalars.contains(where: HiddenCharacter.isHidden) {
            return "name must not contain control or bidirectional-override characters"
        }
        if name.unicodeScalars.count > maxLength {
            return "name is \(name.unicodeScalars.count) characters long; the maximum is \(maxLength)"
        }
        return nil
    }

    /// A source's `feed_url` or `website_url` as it is kept, or why it may not be: the rule every
    /// stored URL passes (`StoredURL`), with an IP-literal host allowed where the fetcher may
    /// connect, the operator's networks (`--allow-networks`) included, so an intranet feed passes
    /// when its network is allowed. The message names the field and echoes the value.
    static func storedURL(_ url: String, field: String, allowing networks: [CIDR]) -> Result<String, FieldProblem> {
        var hostProblem = "not a valid IP address"
        let checked = StoredURL.validate(url) { literal in
            guard let address = AddressPolicy.literalAddress(inHost: literal) else { return false }
            guard case .blocked(let reason) = AddressPolicy.verdict(for: address, allowing: networks) else { return true }
            hostProblem = "in a range the fetcher refuses (\(reason)); an intranet feed's network can be allowed with --allow-networks"
            return false
        }
        return checked.mapError { rejection in
            let shown = "\(field) '\(printable(url))'"
            switch rejection {
            case .empty: return FieldProblem("\(field) must not be empty")
            case .tooLong(let limit): return FieldProblem("\(field) is longer than \(limit) characters")
            // The value is not echoed: it may hold a password.
            case .userinfoPresent: return FieldProblem("\(field) must not contain a user name or password (value not shown)")
            case .notAbsolute, .schemeNotAllowed: return FieldProblem("\(shown) must be an absolute http:// or https:// URL")
            case .disallowedIPLiteral: return FieldProblem("\(shown) is refused: its host is \(hostProblem)")
            default: return FieldProblem("\(shown) is refused: \(rejection)")
            }
        }
    }

    /// Echoes a bad value in a message without letting control characters into logs.
    static func printable(_ value: String) -> String {
        if value.utf8.count <= 120, !value.unicodeScalars.contains(where: HiddenCharacter.isHidden) { return value }
        let cleaned = String(String.UnicodeScalarView(value.unicodeScalars.map { HiddenCharacter.isHidden($0) ? "?" : $0 }))
        return cleaned.count > 120 ? String(cleaned.prefix(120)) + "..." : cleaned
    }
}

/// Why a field's value is refused, worded for the operator.
struct FieldProblem: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
