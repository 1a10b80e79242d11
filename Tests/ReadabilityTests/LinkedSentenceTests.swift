import Testing
@testable import Readability

/// A paragraph written as a `<div>` with most of its words in links: Readability.js keeps the
/// DIV a container and `_cleanConditionally` drops it as a link box; a sentence is kept as the
/// same text in a `<p>` would be, a menu or a list of titles still goes.
struct LinkedSentenceTests {
    static func text(_ body: String) throws -> String {
        try #require(try extract(page(title: "Mistakes were made on election night", body: "<article>\(body)</article>"))).text
    }

    @Test func aLinkedSentenceInADivStays() throws {
        let sentence = """
            <div><a href="https://other.example/story">According to a report on another site</a>, it began on Tuesday evening with \
            this post from <a href="https://social.example/fund">the Centre for Progress Action Fund</a>:</div>
            """
        let text = try Self.text("\(fillerParagraphs(2))\(sentence)\(fillerParagraphs(2))")
        #expect(text.contains("it began on Tuesday evening with this post from the Centre for Progress Action Fund:"))
    }

    @Test func aMenuOrTitleListInADivGoes() throws {
        let menu = "<div><a href='/'>Home page</a> | <a href='/news'>News and comment</a> | <a href='/about'>About this site.</a></div>"
        let titles = (0..<6).map { "* <a href='/part\($0)'>Part \($0) of the long journey</a> " }.joined() + "..."
        let text = try Self.text("\(fillerParagraphs(2))\(menu)<div>\(titles)</div>\(fillerParagraphs(2))")
        #expect(!text.contains("News and comment"))
        #expect(!text.contains("long journey"))
    }

    @Test func letterCountSkipsPunctuationAndCountsOtherScripts() {
        #expect(Extractor.letterCount(" * | ... 2024 ") == 0)
        #expect(Extractor.letterCount("Tweet: été") == 8)
    }
}
