import TestSupport
import TextSupport
import Foundation
import Testing

/// TextScan's substring test and whitespace trim replace Foundation's `contains(_:)` and
/// `trimmingCharacters(in: .whitespacesAndNewlines)` on the extraction path; on random strings
/// they must answer as Foundation does.
@Suite struct FoundationParityTests {
    @Test func trimmingWhitespaceMatchesFoundation() {
        var generator = SplitMix(seed: 20261125)
        for _ in 0..<5_000 {
            let text = randomText(&generator)
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
            let text = randomText(&generator)
            let other = randomText(&generator)
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

/// The long-needle search (Knuth-Morris-Pratt) must find exactly what a plain scan finds, and stay
/// linear on the inputs that make a plain scan quadratic.
@Suite struct ByteSearchTests {
    static func plainScan(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty else { return true }
        guard haystack.count >= needle.count else { return false }
        return (0...(haystack.count - needle.count)).contains { start in
            haystack[start..<(start + needle.count)].elementsEqual(needle)
        }
    }

    @Test func longNeedlesAgreeWithAPlainScan() {
        var generator = SplitMix(seed: 42)
        // Two letters make periodic text, where a wrong failure table would skip a match.
        for _ in 0..<3_000 {
            let haystack = (0..<Int.random(in: 0...300, using: &generator)).map { _ in UInt8.random(in: 97...98, using: &generator) }
            var needle = (0..<Int.random(in: 33...80, using: &generator)).map { _ in UInt8.random(in: 97...98, using: &generator) }
            if !haystack.isEmpty, Bool.random(using: &generator), haystack.count > 40 {
                let start = Int.random(in: 0..<(haystack.count - 33), using: &generator)
                needle = Array(haystack[start..<min(haystack.count, start + Int.random(in: 33...80, using: &generator))])
            }
            let found = haystack.withUnsafeBufferPointer { h in needle.withUnsafeBufferPointer { TextScan.contains(h, $0) } }
            #expect(found == Self.plainScan(haystack, needle), "\(String(decoding: haystack, as: UTF8.self)) / \(String(decoding: needle, as: UTF8.self))")
        }
    }

    /// "a a a ... b" in 4 MB of "a a a ...": a plain scan compares up to the needle's 20,000 bytes at
    /// each of 4 million positions; this one touches each byte a bounded number of times.
    @Test(.timeLimit(.minutes(1))) func theWorstShapeForAScanStaysLinear() {
        let haystack = String(repeating: "a ", count: 2_000_000)
        let needle = String(repeating: "a ", count: 10_000) + "b"
        #expect(!TextScan.contains(haystack, needle))
        #expect(TextScan.contains(haystack + needle, needle))
    }
}
