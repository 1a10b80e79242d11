import Testing
@testable import Enrichment

/// `ErrorPage.hasMoreCharacters` counts a lower bound on the bytes before stepping Characters;
/// its answer must be `text.count > limit` for ASCII, CR LF runs, combining marks, emoji and CJK.
struct ErrorPageLengthTests {
    @Test func answersAsCountDoes() {
        let pieces = ["a", " ", "\r\n", "\r", "\n", "e\u{301}", "’", "👩‍👩‍👧", "中", "\u{600}1", "🇬🇧", "ab"]
        var generator = SystemRandomNumberGenerator()  // a failure prints its case
        for _ in 0..<2_000 {
            let text = (0..<Int.random(in: 0...40, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            for limit in [0, 1, 5, 17, 30, 60] {
                #expect(ErrorPage.hasMoreCharacters(than: limit, text) == (text.count > limit), "\(limit) \(text.debugDescription)")
            }
        }
        let long = String(repeating: "word ", count: 200)
        #expect(ErrorPage.hasMoreCharacters(than: 600, long) == (long.count > 600))
        #expect(ErrorPage.hasMoreCharacters(than: 1_000, long) == (long.count > 1_000))
    }
}

extension ErrorPageLengthTests {
    /// The worst shapes for the lower bound: no ASCII pair anywhere (it stays at zero and the
    /// Character walk runs, at most 601 Characters), and one Character holding a megabyte of
    /// combining marks (the walk reads it once).
    @Test func worstShapesStayLinear() {
        let cjk = String(repeating: "中", count: 1 << 18)
        #expect(ErrorPage.hasMoreCharacters(than: 600, cjk))
        let oneCharacter = "e" + String(repeating: "\u{301}", count: 1 << 19)
        #expect(!ErrorPage.hasMoreCharacters(than: 600, oneCharacter))
    }
}
