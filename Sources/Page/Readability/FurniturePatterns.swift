/// Two of the page-furniture line patterns, matched by hand on Unicode scalars. They were Swift
/// `Regex`es (unicode-scalar semantics), and no library here matches faster: a match cost about
/// 100,000 instructions and compiling the two about 4 million per process, together 1% of a
/// small page's extraction. The rules below are the patterns' own, backtracking included, and
/// `FurniturePatternOracleTests` holds them to the `Regex`es on random lines. As there: `\s` is a
/// White_Space scalar, `\d` any scalar with a numeric type, `$` the end of the text only, and
/// letters compare without case when a scalar's lower-case mapping is that letter.
enum FurniturePatterns {
    /// `^(?:image|photo|picture|slide|foto|imagem|imagen)\s+\d+\s*(?:of|/|de|von)\s*\d+$`, on
    /// already lower-cased text (compared exactly).
    static func isGalleryCounter(_ lowered: String) -> Bool {
        let scalars = Array(lowered.unicodeScalars)
        for word in galleryWords where starts(scalars, at: 0, with: word, ignoringCase: false) {
            var index = word.count
            let spaces = skip(scalars, from: index, while: isSpace)
            guard spaces > index else { continue }
            let digits = skip(scalars, from: spaces, while: isDigit)
            guard digits > spaces else { continue }
            index = skip(scalars, from: digits, while: isSpace)
            guard let separator = gallerySeparators.first(where: { starts(scalars, at: index, with: $0, ignoringCase: false) })
            else { continue }
            index = skip(scalars, from: index + separator.count, while: isSpace)
            if index < scalars.count, skip(scalars, from: index, while: isDigit) == scalars.count { return true }
        }
        return false
    }

    /// `(?:^|[.!?]\s+)(?:image|photo|photograph|picture|credit|foto|imagem|imagen|bild|crédit photo|crédits photo|crédito|zdjęcie|źródło|quelle|fuente)s?(?: by)?\s*[:/]\s*[^.!?]{1,60}$`,
    /// ignoring case, anywhere in `text`.
    static func endsWithCredit(_ text: String) -> Bool {
        let scalars = Array(text.unicodeScalars)
        // The tail `\s*[^.!?]{1,60}$` after the colon or slash: no sentence stop to the end, and
        // at most 60 scalars once the leading spaces are given to `\s*` (all of them but one may
        // be: a tail of spaces alone matches).
        func tailMatches(from start: Int) -> Bool {
            guard start < scalars.count, !scalars[start...].contains(where: isStop) else { return false }
            return scalars.count - skip(scalars, from: start, while: isSpace) <= 60
        }
        func restMatches(from wordEnd: Int) -> Bool {
            // `s?` and `(?: by)?`, each tried taken and not taken, as the regex backtracks.
            let sTaken = starts(scalars, at: wordEnd, with: ["s"], ignoringCase: true)
            for afterS in sTaken ? [wordEnd + 1, wordEnd] : [wordEnd] {
                let byTaken = starts(scalars, at: afterS, with: [" ", "b", "y"], ignoringCase: true)
                for afterBy in byTaken ? [afterS + 3, afterS] : [afterS] {
                    let mark = skip(scalars, from: afterBy, while: isSpace)
                    if mark < scalars.count, scalars[mark] == ":" || scalars[mark] == "/", tailMatches(from: mark + 1) { return true }
                }
            }
            return false
        }
        for start in scalars.indices where start == 0 || followsSentenceStop(scalars, at: start) {
            for word in creditWords where starts(scalars, at: start, with: word, ignoringCase: true) {
                if restMatches(from: start + word.count) { return true }
            }
        }
        return false
    }

    private static let galleryWords: [[Unicode.Scalar]] =
        ["image", "photo", "picture", "slide", "foto", "imagem", "imagen"].map { Array($0.unicodeScalars) }
    private static let gallerySeparators: [[Unicode.Scalar]] = ["of", "/", "de", "von"].map { Array($0.unicodeScalars) }
    private static let creditWords: [[Unicode.Scalar]] =
        ["image", "photo", "photograph", "picture", "credit", "foto", "imagem", "imagen",
         // The same label in the sources' other languages ("Bild: dpa", "Crédits photos : AFP",
         // "Zdjęcie: PAP"), and the source line under a release ("Quelle: DJV", "Źródło: PAP").
         "bild", "crédit photo", "crédits photo", "crédito", "zdjęcie", "źródło", "Źródło", "quelle", "fuente"].map { Array($0.unicodeScalars) }

    // ASCII answered without the property tables (a lookup was 300 instructions): of ASCII, only
    // tab to carriage return and space are White_Space, and only 0-9 have a numeric type.
    private static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII ? scalar == " " || scalar.value &- 0x09 < 5 : scalar.properties.isWhitespace
    }
    private static func isDigit(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII ? scalar.value &- 0x30 < 10 : scalar.properties.numericType != nil
    }
    private static func isStop(_ scalar: Unicode.Scalar) -> Bool { scalar == "." || scalar == "!" || scalar == "?" }

    /// The first index at or after `index` whose scalar fails `test`.
    private static func skip(_ scalars: [Unicode.Scalar], from index: Int, while test: (Unicode.Scalar) -> Bool) -> Int {
        var index = index
        while index < scalars.count, test(scalars[index]) { index += 1 }
        return index
    }

    /// `[.!?]\s+` ends right before `index`.
    private static func followsSentenceStop(_ scalars: [Unicode.Scalar], at index: Int) -> Bool {
        var before = index - 1
        guard before >= 0, isSpace(scalars[before]) else { return false }
        while before >= 0, isSpace(scalars[before]) { before -= 1 }
        return before >= 0 && isStop(scalars[before])
    }

    /// The pattern's letters are ASCII lower case; without case, a scalar matches one when its
    /// lower-case mapping is that letter (ASCII upper case, and U+212A KELVIN SIGN for "k").
    private static func starts(_ scalars: [Unicode.Scalar], at index: Int, with word: [Unicode.Scalar], ignoringCase: Bool) -> Bool {
        guard index + word.count <= scalars.count else { return false }
        for (offset, wanted) in word.enumerated() {
            let scalar = scalars[index + offset]
            if scalar == wanted { continue }
            guard ignoringCase, wanted.properties.isLowercase else { return false }
            if scalar.isASCII {
                guard scalar.value &- 0x41 < 26, scalar.value | 0x20 == wanted.value else { return false }
            } else if !scalar.properties.lowercaseMapping.unicodeScalars.elementsEqual([wanted]) {
                return false
            }
        }
        return true
    }
}
