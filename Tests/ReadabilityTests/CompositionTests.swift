import Testing
@testable import Readability

/// The article's text is stored composed (NFC): a page written with decomposed marks gives the
/// same text as one written composed.
struct CompositionTests {
    /// "Café" with U+0301, and Bengali "কো" as its vowel sign's two halves (U+09C7 U+09BE).
    @Test func decomposedTextFromAPageIsComposed() throws {
        let html = page(body: "<article>\(fillerParagraphs(4))<p>Cafe\u{301} and \u{995}\u{9C7}\u{9BE} in one line.</p></article>")
        let text = try #require(try extract(html)).text
        #expect(text.unicodeScalars.contains("\u{E9}"), "e and its acute accent as one scalar")
        #expect(text.unicodeScalars.contains("\u{9CB}"), "the two-part vowel sign as one scalar")
        #expect(!text.unicodeScalars.contains("\u{301}"))
    }

    @Test(arguments: [
        "Plain ASCII text.", "Größe, Żółć, naïve", "“Quoted” — text…", "中文新闻标题", "한국어 기사",
    ])
    func composedTextIsLeftAsItIs(_ text: String) {
        #expect(!Composition.mayChange(text))
        #expect(Composition.composed(text).utf8.elementsEqual(text.utf8))
    }

    @Test func combiningMarksAreFound() {
        #expect(Composition.mayChange("e\u{301}"))
        #expect(Composition.mayChange("\u{995}\u{9BE}"))
        #expect(Composition.composed("e\u{301}") == "\u{E9}")
        #expect(Composition.composed("e\u{301}").unicodeScalars.count == 1)
    }
}
