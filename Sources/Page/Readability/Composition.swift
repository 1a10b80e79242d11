/// The article's text in Unicode NFC. Pages are written in either form, and a page whose Bengali
/// vowel signs or accents came decomposed (a base letter, then its combining mark) gave a text
/// that matched neither a search for the same words nor the labelled sets' segments, which are
/// composed as nearly all text is. The standard library composes (`_nfcCodeUnits`, public though
/// underscored: Foundation's `precomposedStringWithCanonicalMapping` would bring
/// swift-corelibs-foundation into the process, see `CompatibilityASCII`); the check for whether a
/// text needs it is ours, so the common text, already composed, is read once and not copied.
enum Composition {
    /// `text` in NFC; `text` itself when no scalar in it can change under NFC.
    static func composed(_ text: String) -> String {
        mayChange(text) ? String(decoding: text._nfcCodeUnits, as: UTF8.self) : text
    }

    /// Whether `text` holds a combining mark (canonical combining class above 0), or a letter of
    /// the scripts whose vowel signs and jamo compose with the letter before them though their
    /// class is 0 (Indic scripts, Myanmar, Hangul jamo, Balinese, the Brahmic scripts of plane 1).
    /// Singletons that NFC replaces (U+2126 OHM SIGN) are left as they are: they are rare, and
    /// replacing them changes no word a reader or a search would see differently.
    static func mayChange(_ text: String) -> Bool {
        // Every scalar below U+0300 (ASCII, Latin-1, Latin Extended, IPA) is composed and never
        // composes with the one before it: UTF-8 lead bytes below 0xCC.
        guard text.utf8.contains(where: { $0 >= 0xCC }) else { return false }
        for scalar in text.unicodeScalars where scalar.value >= 0x300 {
            switch scalar.value {
            case 0x2000...0x20CF, 0x2100...0x2BFF, 0x3400...0x9FFF, 0xAC00...0xD7A3:
                continue   // punctuation and symbols, CJK ideographs, Hangul syllables: class 0, composed
            case 0x0900...0x0DFF, 0x1000...0x109F, 0x1100...0x11FF, 0x1B00...0x1B7F, 0x11000...0x11FFF:
                return true
            default:
                if scalar.properties.canonicalCombiningClass.rawValue != 0 { return true }
            }
        }
        return false
    }
}
