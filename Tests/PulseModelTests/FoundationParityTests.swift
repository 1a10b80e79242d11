import Foundation
import Testing
@testable import PulseModel

/// TextScan's substring test and whitespace trim replace Foundation's `contains(_:)` and
/// `trimmingCharacters(in: .whitespacesAndNewlines)` on the extraction path; on random strings
/// they must answer as Foundation does.
@Suite struct FoundationParityTests {
    @Test func trimmingWhitespaceMatchesFoundation() {
        var generator = SplitMix(seed: 20261125)
        for _ in 0..<5_000 {
            let text = ByteLevelTextTests.randomText(&generator)
            #expect(TextScan.trimmingWhitespace(text) == text.trimmingCharacters(in: .whitespacesAndNewlines),
                    "\(Array(text.unicodeScalars.map(\.value)))")
        }
    }

    /// The byte search is Foundation's literal search (`.literal`: code point for code point).
    /// Foundation's default search also refuses a match that ends inside a character (before a
    /// combining mark) and equates canonically equivalent spellings; the rules that call it search
    /// for ASCII words and for text cut from the same page, where neither matters.
    @Test func containsMatchesFoundationsLiteralSearch() {
        var generator = SplitMix(seed: 7)
        for _ in 0..<5_000 {
            let text = ByteLevelTextTests.randomText(&generator)
            let other = ByteLevelTextTests.randomText(&generator)
            let scalars = Array(text.unicodeScalars)
            var needles = [other, String(other.prefix(2)), "", "a", "é"]
            if !scalars.isEmpty {
                let start = Int.random(in: 0..<scalars.count, using: &generator)
                let end = Int.random(in: start...scalars.count, using: &generator)
                needles.append(String(String.UnicodeScalarView(scalars[start..<end])))
            }
            for needle in needles where !needle.isEmpty {
                #expect(TextScan.contains(text, needle) == (text.range(of: needle, options: .literal) != nil),
                        "\(Array(text.unicodeScalars.map(\.value))) / \(Array(needle.unicodeScalars.map(\.value)))")
            }
        }
        #expect(TextScan.contains("anything", ""))
    }
}
