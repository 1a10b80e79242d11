import Testing
@testable import Readability

/// The hand matchers in FurniturePatterns against the Swift `Regex`es they replaced (kept here as
/// the oracle, compiled exactly as PageFurniture compiled them), on random lines built from the
/// pieces each pattern cares about: its words in mixed case, spaces of several kinds, digits of
/// several numeric types, stops, the separators, and letters whose case mapping is not ASCII.
@Suite struct FurniturePatternOracleTests {
    static func regex(_ text: String, ignoringCase: Bool) -> Regex<Substring> {
        let regex = try! Regex(text, as: Substring.self).matchingSemantics(.unicodeScalar).wordBoundaryKind(.simple)
        return ignoringCase ? regex.ignoresCase() : regex
    }

    nonisolated(unsafe) static let gallery = regex(
        #"^(?:image|photo|picture|slide|foto|imagem|imagen)\s+\d+\s*(?:of|/|de|von)\s*\d+$"#, ignoringCase: false)
    nonisolated(unsafe) static let credit = regex(
        #"(?:^|[.!?]\s+)(?:image|photo|photograph|picture|credit|foto|imagem|imagen|bild|crédit photo|crédits photo|crédito|zdjęcie|źródło|quelle|fuente)s?(?: by)?\s*[:/]\s*[^.!?]{1,60}$"#,
        ignoringCase: true)

    static let galleryPieces = [
        "image", "imagem", "imagen", "photo", "picture", "slide", "foto", "imag", " ", " ", "\t", "\u{A0}", "\u{2003}",
        "\n", "\u{200B}", "1", "12", "\u{0663}", "\u{00B2}", "\u{56DB}", "\u{2167}", "\u{00BD}", "of", "/", "de", "von",
        "o", "x", "-",
    ]
    static let creditPieces = [
        "image", "IMAGE", "Imagem", "imagen", "photo", "PHOTO", "photograph", "Picture", "credit", "CREDIT", "foto",
        "Bild", "quelle", "QUELLE", "Crédito", "zdjęcie", "Źródło", "fuente", "Crédits photo",
        "s", "S", " by", " BY", " bY", "by", ":", "/", " ", " ", "  ", "\t", "\n", "\u{A0}", "\u{2003}", ".", "!", "?",
        "Getty", "x", "\u{00E9}", "\u{0130}", "\u{212A}", "\u{017F}", "\u{0131}", "aaaaaaaaaa", "bbbbbbbbbbbbbbbbbbbb",
    ]

    static func line(from pieces: [String], maxPieces: Int, _ generator: inout SystemRandomNumberGenerator) -> String {
        (0..<Int.random(in: 0...maxPieces, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
    }

    @Test func galleryCounterMatchesTheRegex() {
        var generator = SystemRandomNumberGenerator()  // a failure prints its case
        var matched = 0
        let words = Array(Self.galleryPieces[0..<8]), spaces = Array(Self.galleryPieces[8..<15])
        let digits = Array(Self.galleryPieces[15..<22]), separators = Array(Self.galleryPieces[22...])
        func some(_ pieces: [String], _ most: Int) -> String {
            (0..<Int.random(in: 0...most, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
        }
        for round in 0..<20_000 {
            // Half the lines are random pieces; half follow the pattern's shape with every part
            // possibly missing, doubled or of the wrong kind, so matches and near misses both occur.
            let text = round % 2 == 0 ? Self.line(from: Self.galleryPieces, maxPieces: 9, &generator)
                : some(words, 2) + some(spaces, 2) + some(digits, 2) + some(spaces, 2) + some(separators, 1)
                    + some(spaces, 2) + some(digits, 2) + some(Self.galleryPieces, 1)
            let expected = text.contains(Self.gallery)
            matched += expected ? 1 : 0
            #expect(FurniturePatterns.isGalleryCounter(text) == expected, "\(text.debugDescription)")
        }
        #expect(matched > 40)  // about 96 expected (sd ~8): the generator reaches matching lines, not only misses
    }

    @Test func creditMatchesTheRegex() {
        var generator = SystemRandomNumberGenerator()
        var matched = 0
        for _ in 0..<20_000 {
            let text = Self.line(from: Self.creditPieces, maxPieces: 14, &generator)
            let expected = text.contains(Self.credit)
            matched += expected ? 1 : 0
            #expect(FurniturePatterns.endsWithCredit(text) == expected, "\(text.debugDescription)")
        }
        #expect(matched > 100)  // about 225 expected (sd ~15): the generator reaches matching lines
    }

    /// The edges written out: the 60-scalar tail, a tail of spaces only, "s" and " by" taken or
    /// not, a start after a stop and spaces, the end of input (a final line break is not `$`'s).
    @Test func creditEdges() {
        let cases = [
            "Photo: " + String(repeating: "x", count: 60), "Photo: " + String(repeating: "x", count: 61),
            "Photo:" + String(repeating: " ", count: 70) + String(repeating: "x", count: 60), "Photo:   ", "Photo:",
            "Photos by: Reuters", "photos by/AP", "Photo BY : AP", "Photos: AP", "photoss: AP", "Photo by AP",
            "Floods. Image: GETTY", "Floods.Image: GETTY", "Floods.  \u{A0}Image: GETTY", "Floods, Image: GETTY",
            "Image: GETTY.", "Image: GETTY\n", "Image: Getty! Now", "xImage: GETTY", "Photograph / Elena Ruiz",
            "Imagem: Ag\u{00EA}ncia Brasil", "\u{212A}redit: x", "Cred\u{0130}t: x", "photo\u{017F}: x",
        ]
        for text in cases {
            #expect(FurniturePatterns.endsWithCredit(text) == text.contains(Self.credit), "\(text.debugDescription)")
        }
        #expect(FurniturePatterns.endsWithCredit("Evacuees wait at the school gym. Image: GETTY"))
    }

    /// Every ASCII character as the space or the digit, against the patterns' own classes.
    @Test func asciiClassesMatchTheRegex() {
        for value in UInt8(0)..<0x80 {
            let character = String(UnicodeScalar(value))
            #expect(FurniturePatterns.isGalleryCounter("photo\(character)1 of 2") == "photo\(character)1 of 2".contains(Self.gallery))
            #expect(FurniturePatterns.isGalleryCounter("photo 1 of \(character)") == "photo 1 of \(character)".contains(Self.gallery))
            #expect(FurniturePatterns.endsWithCredit("a.\(character)Photo: AP") == "a.\(character)Photo: AP".contains(Self.credit))
        }
    }

    @Test func galleryEdges() {
        let cases = [
            "photo 3 of 12", "photo 3of12", "photo3 of 12", "image 1 / 9", "imagen 2 de 5", "foto 4 von 7",
            "slide 1 of", "slide 1 of 2 ", "slide \u{0663} of \u{56DB}", "picture 1\n of 2", "photo 1 of 2\n", "photos 1 of 2",
        ]
        for text in cases {
            #expect(FurniturePatterns.isGalleryCounter(text) == text.contains(Self.gallery), "\(text.debugDescription)")
        }
    }
}
