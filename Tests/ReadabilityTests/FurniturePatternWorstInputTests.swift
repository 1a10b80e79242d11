import Testing
@testable import Readability

/// The furniture patterns run on untrusted page text: the contact pattern as a Swift `Regex`
/// (backtracking), the credit and gallery patterns by hand (FurniturePatterns), trying each word
/// at each start. What bounds them: only lines under `furnitureLineLimit` (300 bytes) reach them,
/// the credit pattern also needs under 200 bytes and a ':' or '/', and the gallery pattern under
/// 32 characters; the quantifiers are bounded ({1,60}) or anchored. These are the worst shapes of those lengths:
/// long runs the unbounded `+` and `\s*` can try from every start position, near misses at the end.
@Suite struct FurniturePatternWorstInputTests {
    @Test func contactPatternOnTheLongestLineOfNearMisses() {
        let run = String(repeating: "a", count: Extractor.furnitureLineLimit - 20)
        #expect(!Extractor.isContactLine("contact " + run + "@b"))            // no dot after the '@'
        #expect(!Extractor.isContactLine("follow " + String(repeating: "a.", count: 140)))
        #expect(Extractor.isContactLine("contact " + run + "@b.co"))
    }

    @Test func creditPatternOnTheLongestLineOfNearMisses() {
        let starts = String(repeating: "photo. ", count: 27)                  // a start at every sentence end
        #expect(!Extractor.isCreditOrCaptionLine(starts + ":" + String(repeating: "x", count: 61)))  // over {1,60}
        #expect(!Extractor.isCreditOrCaptionLine(String(repeating: "photo  ", count: 28) + "/."))
        #expect(Extractor.isCreditOrCaptionLine(String(repeating: "photo. ", count: 25) + "Photo: Elena Ruiz"))  // 192 bytes
    }

    @Test func galleryPatternOnlySeesShortLines() {
        #expect(Extractor.isGalleryCounter("photo 3 of 12"))
        #expect(!Extractor.isGalleryCounter("photo " + String(repeating: "1", count: 40) + " of 2"))  // too long to try
        #expect(!Extractor.isGalleryCounter("photo 1    of   "))
    }
}
