/// ISO 639-1 codes and the mapping from CLD2's language codes.
///
/// Hand-written on purpose: the contract needs exactly the two-letter ISO 639-1 set, which is a
/// fixed list; Foundation's `Locale` lists come from the bundled ICU, mix in 639-2/3 codes and
/// change with the ICU version.
enum ISO639 {
    /// The current ISO 639-1 set (183 codes). Withdrawn codes (bh, iw, in, ji, jw, mo, sh) are
    /// absent; the ones CLD2 still uses are renamed by `aliases`.
    static let codes: Set<String> = [
        "aa", "ab", "ae", "af", "ak", "am", "an", "ar", "as", "av", "ay", "az",
        "ba", "be", "bg", "bi", "bm", "bn", "bo", "br", "bs",
        "ca", "ce", "ch", "co", "cr", "cs", "cu", "cv", "cy",
        "da", "de", "dv", "dz", "ee", "el", "en", "eo", "es", "et", "eu",
        "fa", "ff", "fi", "fj", "fo", "fr", "fy", "ga", "gd", "gl", "gn", "gu", "gv",
        "ha", "he", "hi", "ho", "hr", "ht", "hu", "hy", "hz",
        "ia", "id", "ie", "ig", "ii", "ik", "io", "is", "it", "iu",
        "ja", "jv", "ka", "kg", "ki", "kj", "kk", "kl", "km", "kn", "ko", "kr", "ks", "ku", "kv", "kw", "ky",
        "la", "lb", "lg", "li", "ln", "lo", "lt", "lu", "lv",
        "mg", "mh", "mi", "mk", "ml", "mn", "mr", "ms", "mt", "my",
        "na", "nb", "nd", "ne", "ng", "nl", "nn", "no", "nr", "nv", "ny",
        "oc", "oj", "om", "or", "os", "pa", "pi", "pl", "ps", "pt", "qu",
        "rm", "rn", "ro", "ru", "rw",
        "sa", "sc", "sd", "se", "sg", "si", "sk", "sl", "sm", "sn", "so", "sq", "sr", "ss", "st", "su", "sv", "sw",
        "ta", "te", "tg", "th", "ti", "tk", "tl", "tn", "to", "tr", "ts", "tt", "tw", "ty",
        "ug", "uk", "ur", "uz", "ve", "vi", "vo", "wa", "wo", "xh", "yi", "yo", "za", "zh", "zu",
    ]

    /// Withdrawn two-letter codes that CLD2 (2015 tables) or old configs still use.
    static let aliases: [String: String] = [
        "iw": "he", "jw": "jv", "in": "id", "ji": "yi", "mo": "ro",
    ]

    /// "zh-Hant" -> "zh", "sr-ME" -> "sr", "iw" -> "he", "PT_br" -> "pt"; nil when the primary
    /// subtag is not (an alias of) an ISO 639-1 code.
    static func normalize(_ code: String) -> String? {
        let primary = code.split(whereSeparator: { $0 == "-" || $0 == "_" }).first.map(String.init) ?? ""
        guard primary.utf8.count == 2, primary.unicodeScalars.allSatisfy(\.isASCII) else { return nil }
        let lower = primary.lowercased()
        let mapped = aliases[lower] ?? lower
        return codes.contains(mapped) ? mapped : nil
    }

    /// CLD2's answers that mean "no language": unknown, Teragram unknown, unknown-in-script.
    static func isAbstention(_ cld2Code: String) -> Bool {
        cld2Code == "un" || cld2Code == "xxx" || cld2Code.hasPrefix("xx-")
    }
}
