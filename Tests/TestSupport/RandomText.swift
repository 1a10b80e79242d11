/// Controls, bidi controls, the kept marks, zero-width and BOM, every kind of whitespace,
/// line breaks, 2-, 3- and 4-byte letters, combining marks, upper case, digits, punctuation.
let randomTextAlphabet: [Unicode.Scalar] = [
    "a", "B", "z", "0", "9", " ", " ", "\n", "\n", "\t", "\r", "\u{0B}", "\u{0C}", "\u{00}", "\u{1F}",
    "\u{7F}", "\u{85}", "\u{9F}", "\u{A0}", "\u{1680}", "\u{2000}", "\u{200A}", "\u{200B}", "\u{200D}",
    "\u{200E}", "\u{200F}", "\u{061C}", "\u{2028}", "\u{2029}", "\u{202A}", "\u{202E}", "\u{202F}",
    "\u{205F}", "\u{2066}", "\u{2069}", "\u{3000}", "\u{FEFF}", "\u{FFFD}", "\u{FFFE}", "\u{FFFF}",
    "é", "É", "ß", "İ", "Σ", "ж", "Ж", "א", "٣", "中", "ア", "\u{0301}", "😀", "𝔸", ".", ",", "!", "?",
    "-", "'", "\u{3002}", "\u{023A}", "\u{2C6F}",
]

/// Up to 40 scalars from the characters the byte-level text rules treat specially.
public func randomText(_ generator: inout some RandomNumberGenerator) -> String {
    var scalars = String.UnicodeScalarView()
    for _ in 0..<Int.random(in: 0...40, using: &generator) {
        scalars.append(randomTextAlphabet.randomElement(using: &generator)!)
    }
    return String(scalars)
}

/// A seeded generator, so a failure names a reproducible case.
public struct SplitMix: RandomNumberGenerator {
    public var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
