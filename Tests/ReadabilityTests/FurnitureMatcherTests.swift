import Foundation
import Testing
@testable import Readability

/// The date-line rule's hand-written matchers must answer as the Foundation calls they replaced.
@Suite struct FurnitureMatcherTests {
    static let lines = [
        "2024-05-14", "updated 2024-05-14 10:22", "published:2024-05-14.", "x2024-05-14", "2024-05-14x",
        "12024-05-14", "2024-05-141", "2024-5-14", "2024/05/14", "on 2024-05-14, in berlin", "_2024-05-14",
        "é2024-05-14", "2024-05-14é", "—2024-05-14—", "٢٠٢٤-٠٥-١٤", "2024-05-14\u{0301}", "", "2024-05-1",
        "see 1999-12-31 and 2024-05-14", "2024-05-14\u{200D}", "(2024-05-14)", "14 may 2024",
    ]

    @Test(arguments: lines)
    func isoDateMatchesTheRegularExpression(_ line: String) {
        let expected = line.range(of: #"\b\d{4}-\d{2}-\d{2}\b"#, options: .regularExpression) != nil
        #expect(Extractor.containsISODate(line) == expected)
    }

    @Test func punctuationTrimMatchesFoundation() {
        let words = ["may,", "(june)", "«jan»", "“dec”", "sept.", "¿oct?", "--nov--", "a-b", "...", "", "mar·",
                     "apr\u{0301}.", "jul_", "aug!", "feb;", "'jan'", "[dec]", "『may』"]
        for word in words {
            #expect(Extractor.trimmingPunctuation(Substring(word)) == word.trimmingCharacters(in: .punctuationCharacters),
                    "\(word)")
        }
    }
}

/// The pull-quote rule compares every heading with every longer paragraph; its total work is capped.
@Suite struct PullQuoteBudgetTests {
    @Test func repeatsInsideLongerParagraphsAreFound() {
        let paragraphs = ["the mayor said the plan would cost more than expected and take longer",
                          "residents were told about it"]
        let candidates = ["the plan would cost more than expected", "residents were told about it",
                          "a heading of its own that repeats nothing"]
        let result = Extractor.repeatedInLongerParagraphs(candidates, paragraphs)
        // The second equals a whole paragraph: not inside a longer one, so it stays (as before).
        #expect(result.repeated == [0])
    }

    /// 2,000 headings against 2,000 paragraphs of 10 kB that none of them is in: 40 GB of search
    /// without the cap. The rule stops at its budget and keeps the remaining headings.
    @Test(.timeLimit(.minutes(1))) func aFloodOfHeadingsAndParagraphsStopsAtTheBudget() {
        let paragraphs = Array(repeating: String(repeating: "a ", count: 5_000), count: 2_000)
        let candidates = (0..<2_000).map { String(repeating: "a ", count: 20) + "b\($0)" }
        let result = Extractor.repeatedInLongerParagraphs(candidates, paragraphs)
        #expect(result.repeated.isEmpty)
        #expect(result.searched <= Extractor.pullQuoteSearchBudget)
        #expect(result.searched > Extractor.pullQuoteSearchBudget - 10_000)
    }

    /// The counter rule's length test (`count < 32`) stops counting at 32: a counter padded with
    /// spaces to 31 Characters still matches, to 32 it does not.
    @Test func galleryCounterLengthIsCountedInCharacters() {
        func counter(_ length: Int, word: String = "image") -> String {
            word + String(repeating: " ", count: length - word.count - "1 of 9".count) + "1 of 9"
        }
        #expect(counter(31).count == 31 && Extractor.isGalleryCounter(counter(31)))
        #expect(counter(32).count == 32 && !Extractor.isGalleryCounter(counter(32)))
        #expect(Extractor.isGalleryCounter(counter(31, word: "imagen")))
    }

    /// Every word the counter pattern starts with (the cheap prefix test before it must let each
    /// through), and lines that only look like counters.
    @Test(arguments: [
        ("image 1 of 9", true), ("imagem 1 de 3", true), ("imagen 2 de 5", true), ("photo 1 von 4", true),
        ("picture 3/12", true), ("slide 2 of 5", true), ("foto 4 de 7", true),
        ("gallery 1 of 9", false), ("1 of 9", false), ("see image 1 of 9", false), ("image one of nine", false),
        ("short text 12.", false),
    ])
    func galleryCounterWords(line: String, isCounter: Bool) {
        #expect(Extractor.isGalleryCounter(line) == isCounter)
    }
}

/// `isDateLine` splits ASCII lines on bytes; it must answer as the Character split does.
@Suite struct DateLineSplitTests {
    static func byCharacters(_ lowered: String) -> Bool {
        let words = lowered.split(whereSeparator: { $0.isWhitespace || $0 == "," || $0 == "|" })
        guard words.count <= 8, lowered.contains(where: \.isNumber) else { return false }
        let hasMonth = words.contains { word in Extractor.monthNames.contains(Extractor.trimmingPunctuation(word)) }
        return hasMonth || Extractor.containsISODate(lowered)
    }

    @Test(arguments: ["14 may 2024, 22:10", "may 14, 2024", "2024-05-14", "updated 14 may 2024 | 10:22", "by anna lindqvist",
                      "14\r\nmay\t2024", "(may) 14", "1 2 3 4 5 6 7 8 9 may", "mayday 2024", "14 mai 2024", "14 may 2024 é",
                      "", "2024", "jan.,feb. 3", "sept. 9|10"])
    func answersAsTheCharacterSplitDoes(line: String) {
        #expect(Extractor.isDateLine(line) == Self.byCharacters(line), "\(line)")
    }
}
