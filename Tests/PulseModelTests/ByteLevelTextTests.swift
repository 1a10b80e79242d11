import TestSupport
import TextSupport
import Testing
@testable import PulseModel

/// StoredText and TextKey work on UTF-8 bytes for speed. These tests hold them to the plain
/// scalar-by-scalar definitions they replaced (written out below as the reference), on random
/// strings built from the characters each rule treats specially.
@Suite struct ByteLevelTextTests {
    @Test func storedTextMatchesTheScalarDefinition() {
        var generator = SplitMix(seed: 20261125)
        for _ in 0..<5_000 {
            let text = randomText(&generator)
            #expect(StoredText.clean(text) == Reference.clean(text), "clean \(text.debugDescription)")
            #expect(StoredText.clean(text, keepNewlines: true) == Reference.clean(text, keepNewlines: true),
                    "clean keeping newlines \(text.debugDescription)")
            for limit in [3, 12, 1000] {
                #expect(StoredText.singleLine(text, limit: limit) == Reference.singleLine(text, limit: limit),
                        "singleLine \(limit) \(text.debugDescription)")
                #expect(StoredText.multiLine(text, limit: limit) == Reference.multiLine(text, limit: limit),
                        "multiLine \(limit) \(text.debugDescription)")
            }
        }
    }

    @Test func textKeyMatchesTheScalarDefinition() {
        var generator = SplitMix(seed: 7)
        for _ in 0..<5_000 {
            let text = randomText(&generator)
            #expect(TextKey.words(text) == Reference.words(text), "\(text.debugDescription)")
            #expect(TextKey.words(text.dropFirst()) == Reference.words(text.dropFirst()))
        }
    }

    /// The fingerprint is FNV-1a over exactly the bytes `words` returns, and nil exactly when
    /// those are empty: the language rule's repeats are the extractor's repeats.
    @Test func fingerprintHashesTheKeyBytes() {
        func fnv(_ key: String) -> UInt64 {
            key.utf8.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x0000_0100_0000_01b3 }
        }
        var generator = SplitMix(seed: 11)
        var distinct = Set<String>()
        for _ in 0..<5_000 {
            let text = randomText(&generator)
            let key = TextKey.words(text)
            let print = text.utf8.withContiguousStorageIfAvailable { TextKey.fingerprint(utf8: $0) } ?? nil
            #expect(print == (key.isEmpty ? nil : fnv(key)), "\(text.debugDescription)")
            let keyed = TextKey.keyFingerprint(text)
            #expect(keyed.hash == fnv(key) && keyed.length == key.utf8.count, "\(text.debugDescription)")
            distinct.insert(key)
        }
        #expect(distinct.count > 1_000)  // the random texts are not all one key
        let sample = "Storm closes SCHOOLS, again!"
        #expect(sample.utf8.withContiguousStorageIfAvailable { TextKey.fingerprint(utf8: $0) }
            == "storm closes schools again".utf8.withContiguousStorageIfAvailable { TextKey.fingerprint(utf8: $0) })
    }

    /// A String is trimmed by slicing its storage, a Substring by the generic scalar rebuild: the
    /// same scalars either way (compared scalar by scalar, not by canonical equivalence).
    @Test func trimmingAStringMatchesTrimmingItsSubstring() {
        var generator = SplitMix(seed: 31)
        for _ in 0..<5_000 {
            let text = randomText(&generator)
            let viaString = TextScan.trimmingWhitespace(text)
            let viaSubstring = TextScan.trimmingWhitespace(text[...])
            #expect(Array(viaString.unicodeScalars) == Array(viaSubstring.unicodeScalars), "\(text.debugDescription)")
        }
    }

    /// The scalars whose lower case is longer in UTF-8 (U+0130 grows by a byte, U+023A too), packed
    /// as densely as possible, alone and between separators: the output never outgrows its buffer.
    @Test func textKeyAtItsWorstGrowth() {
        for piece in ["\u{0130}", "\u{023A}", "\u{0130}.", "\u{023A} ", "a\u{0130}", ".\u{023A}\u{0130}"] {
            for count in [1, 2, 3, 1_000, 4_096] {
                let text = String(repeating: piece, count: count)
                #expect(TextKey.words(text) == Reference.words(text), "\(count) x \(piece.debugDescription)")
            }
        }
    }

    /// The hard-coded White_Space list and the lower-casing shortcut against Unicode's tables.
    @Test func shortcutsAgreeWithTheUnicodeProperties() {
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            #expect(StoredText.isWhitespace(value) == scalar.properties.isWhitespace, "U+\(String(value, radix: 16))")
            let lower = scalar.properties.lowercaseMapping
            #expect(scalar.properties.changesWhenLowercased == (lower != String(scalar)), "U+\(String(value, radix: 16))")
        }
    }

    @Test func examples() {
        #expect(StoredText.multiLine("  p1 \t x\n \n\n\u{202E}\np2\r\n  p3  \n\n", limit: 100) == "p1 x\n\np2\np3")
        #expect(StoredText.singleLine("\u{FEFF} Zurück\u{200B} \u{3000}nach\u{0B}hause\n", limit: 100) == "Zurück nachhause")
        #expect(StoredText.singleLine("שלום 2024!\u{200F}", limit: 100) == "שלום 2024!\u{200F}")
        #expect(TextKey.words("Die STRASSE, ΣΟΦΊΑ — 中文!") == "die strasse σοφία 中文")
    }
}

/// The scalar-by-scalar definitions (the previous implementation), kept as the tests' oracle.
private enum Reference {
    static func clean(_ text: String, keepNewlines: Bool = false) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if StoredText.isForbidden(scalar) {
                if scalar == "\t" {
                    scalars.append(keepNewlines ? scalar : " ")
                } else if HiddenCharacter.kind(scalar) == .lineBreak {
                    scalars.append(keepNewlines && scalar != "\r" ? "\n" : " ")
                }
                continue
            }
            scalars.append(scalar)
        }
        return String(scalars)
    }

    static func singleLine(_ text: String, limit: Int) -> String? {
        cap(foldWhitespace(clean(text)), limit: limit)
    }

    static func multiLine(_ text: String, limit: Int) -> String? {
        let lines = clean(text, keepNewlines: true).split(separator: "\n", omittingEmptySubsequences: false)
        var result: [String] = []
        var blank = false
        for line in lines {
            let folded = foldWhitespace(String(line))
            if folded.isEmpty {
                blank = !result.isEmpty
            } else {
                if blank { result.append("") }
                result.append(folded)
                blank = false
            }
        }
        return cap(result.joined(separator: "\n"), limit: limit)
    }

    static func cap(_ text: String, limit: Int) -> String? {
        let trimmed = text.trimmingWhitespace()
        guard !trimmed.isEmpty else { return nil }
        guard trimmed.count > limit else { return trimmed }
        var cut = trimmed.prefix(limit)
        if let space = cut.lastIndex(where: { $0 == " " || $0 == "\n" }),
           cut.distance(from: cut.startIndex, to: space) > limit / 2 {
            cut = cut[..<space]
        }
        return String(cut).trimmingWhitespace()
    }

    static func foldWhitespace(_ text: String) -> String {
        var result = String.UnicodeScalarView()
        var pendingSpace = false
        for scalar in text.unicodeScalars {
            if scalar.properties.isWhitespace {
                pendingSpace = !result.isEmpty
            } else {
                if pendingSpace { result.append(" ") }
                result.append(scalar)
                pendingSpace = false
            }
        }
        return String(result)
    }

    static func words<S: StringProtocol>(_ text: S) -> String {
        var key = ""
        var pendingSpace = false
        for scalar in text.unicodeScalars {
            guard scalar.properties.isAlphabetic || scalar.properties.numericType != nil else {
                pendingSpace = true
                continue
            }
            if pendingSpace && !key.isEmpty { key += " " }
            pendingSpace = false
            key += scalar.properties.lowercaseMapping
        }
        return key
    }
}
