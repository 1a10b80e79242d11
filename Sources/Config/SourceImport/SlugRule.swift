import PulseConfig

/// The slug of a row that gives none (a feed reader's OPML), derived the same way every time:
///
/// 1. a feed the database already has keeps that source's slug (the first in slug order), so
///    importing the same file again changes nothing;
/// 2. else the name, made a slug: ASCII letters lowercased, digits kept, a Latin letter with a
///    mark loses it (é -> e, ø -> o, æ -> ae, ß -> ss), every other run of characters becomes one
///    `-`, none at either end, at most 100 characters (cut at the last `-` that fits, when there is one);
/// 3. a name that leaves nothing (no Latin letter or digit) gives the feed URL's host instead,
///    without `www.` (`https://www.example.co.uk/rss` -> `example-co-uk`), and a host that leaves
///    nothing gives `source`;
/// 4. a slug already taken (by a row of the file that names it, an earlier derived one, or a
///    database source of another feed) gets `-2`, `-3`, ... (the first that is free).
enum SlugRule {
    static let maxLength = 100

    static func base(name: String?, feedURL: String?) -> String {
        if let name, case let slug = slugify(name), !slug.isEmpty { return slug }
        if let host = feedURL.flatMap(host(of:)), case let slug = slugify(host), !slug.isEmpty { return slug }
        return "source"
    }

    /// The slugs in use, and for each base the number its search for a free `-N` reached. Slugs
    /// are only ever added, so every number below that one is still taken and the next search
    /// starts there: N rows of one name cost N look-ups in all, not N²/2 (20,000 rows of one name
    /// took 41 s when every search started again from `-2`).
    struct Taken {
        private var slugs: Set<String>
        private var searched: [String: Int] = [:]

        init<Slugs: Sequence<String>>(_ slugs: Slugs) { self.slugs = Set(slugs) }

        mutating func insert(_ slug: String) { slugs.insert(slug) }

        /// `base`, or `base-N` with the smallest N >= 2 not taken, within the length limit.
        mutating func unused(_ base: String) -> String {
            guard slugs.contains(base) else { return base }
            var number = searched[base] ?? 2
            while true {
                let suffix = "-\(number)"
                let slug = SlugRule.cut(base, to: SlugRule.maxLength - suffix.count) + suffix
                if !slugs.contains(slug) {
                    searched[base] = number
                    return slug
                }
                number += 1
            }
        }
    }

    /// `text` as a slug (rule 2); empty when nothing of it is left.
    static func slugify(_ text: String) -> String {
        var slug = ""
        var pendingDash = false
        for scalar in text.unicodeScalars {
            let letters: Substring
            if scalar.isASCII {
                let byte = UInt8(scalar.value)
                if byte >= 0x30 && byte <= 0x39 {
                    letters = Substring(String(scalar))
                } else if (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A {
                    letters = Substring(String(UnicodeScalar(byte | 0x20)))
                } else {
                    pendingDash = true
                    continue
                }
            } else if let base = latinBase(of: scalar) {
                letters = base
            } else {
                if scalar.properties.generalCategory != .nonspacingMark { pendingDash = true }
                continue
            }
            if pendingDash, !slug.isEmpty { slug += "-" }
            pendingDash = false
            slug += letters
        }
        return cut(slug, to: maxLength)
    }

    /// A Latin letter's base letters, read from its Unicode name ("LATIN SMALL LETTER E WITH
    /// ACUTE" -> "e", "LATIN CAPITAL LETTER AE" -> "ae", "LATIN SMALL LIGATURE OE" -> "oe"), which
    /// Unicode never changes once assigned.
    private static func latinBase(of scalar: Unicode.Scalar) -> Substring? {
        guard let name = scalar.properties.name else { return nil }
        if name == "LATIN SMALL LETTER SHARP S" || name == "LATIN CAPITAL LETTER SHARP S" { return "ss" }
        for prefix in ["LATIN SMALL LETTER ", "LATIN CAPITAL LETTER ", "LATIN SMALL LIGATURE ", "LATIN CAPITAL LIGATURE "]
        where name.hasPrefix(prefix) {
            let word = name.dropFirst(prefix.count).prefix { $0 != " " }
            guard (1...2).contains(word.count), word.allSatisfy({ $0 >= "A" && $0 <= "Z" }) else { return nil }
            return Substring(word.lowercased())
        }
        return nil
    }

    /// At most `length` characters (all ASCII here), cut after the last whole word that fits.
    private static func cut(_ slug: String, to length: Int) -> String {
        guard slug.utf8.count > length else { return slug }
        var kept = slug.prefix(length)
        if slug[kept.endIndex] != "-", let dash = kept.lastIndex(of: "-") { kept = kept[..<dash] }
        while kept.last == "-" { kept = kept.dropLast() }
        return String(kept)
    }

    /// The host of an http(s) URL, without `www.`, userinfo or port.
    static func host(of url: String) -> String? {
        guard let scheme = url.firstRange(of: "://") else { return nil }
        var authority = url[scheme.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        if !authority.hasPrefix("["), let colon = authority.lastIndex(of: ":") { authority = authority[..<colon] }
        let host = authority.lowercased()
        return host.hasPrefix("www.") ? String(host.dropFirst(4)) : host
    }

    /// The category an OPML folder's text names: a category's slug, its name in any case, or the
    /// text made a slug (`Tech News` -> `tech-news`); nil when none.
    static func category(named text: String, in categories: [CategoryConfig]) -> String? {
        let lowered = text.lowercased()
        let slug = slugify(text)
        return categories.first { $0.slug == text || $0.name.lowercased() == lowered || $0.slug == slug }?.slug
    }
}
