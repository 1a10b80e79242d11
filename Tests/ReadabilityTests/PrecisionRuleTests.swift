import Testing
@testable import Readability

/// One fixture per furniture class of the precision rules (PageFurniture.swift), each with an
/// article paragraph that looks like the furniture and must stay (recall).
struct PrecisionRuleTests {
    static let article = fillerParagraphs(4)

    static func text(_ body: String, url: String = "https://news.example.com/2024/05/story.html") throws -> String {
        try #require(try extract(page(title: "Council approves the harbour plan", body: "<article>\(body)</article>"), url: url)).text
    }

    @Test func headerLinesGoArticleSentencesStay() throws {
        let text = try Self.text("""
            <h1>Council approves the harbour plan</h1><p>By Maria Keller, Political Correspondent</p>
            <p>14 May 2024, 22:10</p><p>Updated 15 May 2024, 08:02</p>
            <p><em>Disclosure: the Gazette receives funding from the city's cultural fund.</em></p>
            <p>By the end of the year, the council expects the first part of the harbour works to be finished, \
            with the remaining phases scheduled for the following spring and summer.</p>\(Self.article)
            """)
        for gone in ["Maria Keller", "22:10", "Updated", "Disclosure"] { #expect(!text.contains(gone), "\(gone)") }
        #expect(text.hasPrefix("By the end of the year"))
    }

    /// The headline repeated in bold above the text goes; a bold name inside the first sentence
    /// that reads like the headline is a word of that sentence.
    @Test func aTitleRepeatGoesABoldNameInASentenceStays() throws {
        let repeated = try Self.text("<p><b>Council approves the harbour plan</b></p>\(Self.article)")
        #expect(!repeated.contains("approves the harbour plan"))
        let inline = try Self.text("<p>In a vote on Tuesday, the <strong>Council approves the harbour plan</strong> motion passed by nine votes to two, after a long debate.</p>\(Self.article)")
        #expect(inline.hasPrefix("In a vote on Tuesday, the Council approves the harbour plan motion passed"))
    }

    /// A quote the markup sets inside a paragraph (`<span><blockquote>` between `<br>` lines joins
    /// the paragraph around it) is that paragraph's text, not a pull quote repeating it.
    @Test func aQuoteInsideItsParagraphIsNoPullQuote() throws {
        let quote = "We had already been looking at rings, so I wanted the time and the place to be a surprise"
        let text = try Self.text("""
            \(Self.article)<div>The winner had this to say about the engagement:<br>\
            <span><blockquote>\(quote).</blockquote></span><br>The wedding is planned for September.</div>
            """)
        #expect(text.contains(quote))
    }

    /// Old markup wraps a subheading's words in `<p><b><font>`: the line and its wrappers are one
    /// line, not a repeat (the repeat rule took the words out of the heading).
    @Test func aSubheadingInsideItsWrappersIsNoRepeat() throws {
        let text = try Self.text("""
            <p><b><font size="2">What happens to the old quay?</font></b></p>\(fillerParagraphs(2))
            <p><b><font size="2">When will the works begin?</font></b></p>\(fillerParagraphs(2))
            """)
        #expect(text.contains("What happens to the old quay?") && text.contains("When will the works begin?"))
    }

    /// A blog post's filing lines go; a sentence that starts like one, mid-article, stays.
    @Test func filingLinesGoASentenceLikeThemStays() throws {
        let text = try Self.text("""
            \(Self.article)<p>Posted in the harbour office on Monday, the notice gave residents until June to object to the plan.</p>
            \(fillerParagraphs(2))<p>Tags: harbour, council, planning</p>
            <p>This entry was posted on Tuesday, May 14th, 2024 at 10:12 am and is filed under Local news. \
            You can follow any responses to this entry through the RSS 2.0 feed.</p>
            """)
        #expect(text.contains("Posted in the harbour office on Monday"))
        #expect(!text.contains("Tags:") && !text.contains("This entry was posted"))
    }

    /// The author's box under a post, whatever the theme calls it ("author_info", "postauthor").
    @Test(arguments: ["author_info", "postauthor", "post-author", "about_author"])
    func theAuthorBoxUnderAPostGoes(_ name: String) throws {
        let bio = "<div class=\"\(name)\"><p>Maria Keller is a science writer who has covered the harbour, the council and the weather for twenty years, and she bakes bread.</p></div>"
        let text = try #require(try extract(page(title: "Council approves the harbour plan",
                                                 body: "<div><article>\(Self.article)\(fillerParagraphs(3))</article>\(bio)</div>"))).text
        #expect(text.contains(filler[0]) && !text.contains("bakes bread"))
    }

    /// A newsletter sign-up line and a print-edition line after the article go; a newsletter the
    /// article talks about stays.
    @Test func trailingSignUpAndPrintLinesGo() throws {
        let text = try Self.text("""
            <p>The harbour board's own newsletter first reported the plan to widen the quay, in March, to little notice.</p>
            \(Self.article)\(fillerParagraphs(2))
            <p>A version of this article appeared in print on 05/14/2024, on page A6 with the headline: Harbour plan approved.</p>
            <p>The week's council news every Friday, in your inbox: try our free newsletter.</p>
            """)
        #expect(text.contains("own newsletter first reported the plan"))
        #expect(!text.contains("appeared in print") && !text.contains("try our free newsletter"))
    }

    /// A paragraph split by `<br><br>` (its first line a linked source) is still a paragraph: its
    /// links do not make it a link-dense container to clean away.
    @Test func aParagraphSplitByLineBreaksKeepsItsLinkedSentence() throws {
        let text = try Self.text("""
            <p><em><a href="https://gazette.example.org/harbour">Harbour Gazette</a></em><br><br>The next issue will \
            carry a <a href="https://gazette.example.org/plan">drawing of the quay as the plan would leave it</a>, the \
            editor said.</p>\(Self.article)
            """)
        #expect(text.contains("The next issue will carry a drawing of the quay"))
    }

    @Test func galleryChromeCaptionsAndPullQuotesGo() throws {
        let quote = "We had ten minutes to get the children in the car"
        let text = try Self.text("""
            \(Self.article)<h2>“\(quote)”</h2><p>Residents left in a hurry. “\(quote),” said one mother.</p>
            <div><p>Image 1 of 9</p><p>Evacuees wait at the school gym. Image: GETTY</p><p>Close</p></div>
            <div><p>Image 2 of 9</p><p>Evacuees wait at the school gym. Image: GETTY</p></div>
            <p>The picture: bleak, with more shelters needed before the weekend, officials said on Sunday night.</p>
            """)
        #expect(!text.contains("Image 1 of 9") && !text.contains("GETTY") && !text.contains("\nClose"))
        #expect(text.components(separatedBy: quote).count == 2, "the quote stays once, in its paragraph")
        #expect(text.contains("The picture: bleak"))
    }

    @Test func tickerWidgetsAndOwnURLGoFiguresStay() throws {
        let url = "https://news.example.com/2024/05/story.html"
        let text = try Self.text("""
            <div>ACME 912.40 +2.3%</div><p>\(url)</p>\(Self.article)
            <p>Shares rose 2.3% to 912.40 dollars on Tuesday after the results were published.</p>
            """, url: url)
        #expect(!text.contains("ACME 912.40") && !text.contains(url))
        #expect(text.contains("Shares rose 2.3% to 912.40"))
    }

    @Test func trailingContactAndAboutBlocksGo() throws {
        let text = try Self.text("""
            <p>Residents can contact them at the town hall, which is open every weekday morning, the council said.</p>
            \(Self.article)<p>About 300 people attended the first meeting, more than the hall could hold.</p>
            <p>Jane Roe covers the council. Contact her at jane.roe@gazette.example.</p>
            <p>Post a comment</p><p>Comments are moderated and may take up to 24 hours to appear.</p>
            <h3>About Harbour Gazette</h3><p>The Gazette has reported on the city since 1881.</p>
            """)
        #expect(text.contains("Residents can contact them at the town hall"))
        #expect(text.contains("About 300 people attended"))
        for gone in ["Jane Roe", "Post a comment", "moderated", "About Harbour Gazette", "since 1881"] {
            #expect(!text.contains(gone), "\(gone)")
        }
    }

    /// A contact line is short; a longer paragraph with an address or "write to me" in it is text,
    /// and so is an author's disclosure after the text.
    @Test func contactParagraphsAndClosingDisclosuresStay() throws {
        let letter = "Thanks again for taking the time to write to me. I'm honoured to have your support, and I'm sorry I could not make it to the dinner."
        let donations = "Have an item you want to give to the auction? Please fill out the form, or write to the organisers at auction@harbour.example."
        let disclosure = "Disclosure: I serve on the board of the harbour trust, which has supported the plan since 2019."
        let text = try Self.text("\(Self.article)<p>\(letter)</p><p>\(donations)</p><p>\(disclosure)</p><p>Follow us on Twitter.</p>")
        for kept in [letter, donations, disclosure] { #expect(text.contains(kept), "\(kept)") }
        #expect(!text.contains("Follow us on Twitter"))
    }

    @Test func mathMLIsKeptAsText() throws {
        let text = try Self.text("""
            \(Self.article)<p>The required speed is <math><mi>v</mi><mo>=</mo><msqrt><mi>G</mi><mi>M</mi><mo>/</mo><mi>r</mi></msqrt>\
            <annotation encoding="application/x-tex">v=\\sqrt{GM/r}</annotation></math>, where r is the orbit's radius.</p>
            """)
        #expect(text.contains("The required speed is v=GM/r, where r"))
        #expect(!text.contains("sqrt"))
    }

    @Test func bodyInsideJavascriptLinksIsKept() throws {
        let body = filler.map { "<p><a href=\"javascript:void(0)\">\($0)</a></p>" }.joined()
        let text = try Self.text(body)
        #expect(text.contains(filler[0]) && text.contains(filler[3]))
    }

    /// No --url: the canonical says .de, the page's own links go to .com; both are the publisher's.
    @Test func relatedBlockOfTheSamePublisherUnderAnotherSuffixGoes() throws {
        let related = (1...4).map { "<li><a href=\"https://www.spiegel-example.com/story-\($0)\">Another story number \($0) from the site</a></li>" }
        let text = try Self.text("\(Self.article)<ul>\(related.joined())</ul>", url: "https://www.spiegel-example.de/article")
        #expect(!text.contains("Another story"))
        #expect(Extractor.sameSite("bbc.co.uk", "bbc.com") && Extractor.sameSite("news.example.de", "news.example.com"))
        #expect(!Extractor.sameSite("bugs.example.org", "news.example.com") && !Extractor.sameSite("10.0.0.1", "10.0.0.2"))
    }
}

extension PrecisionRuleTests {
    /// Picture credits and source lines in the sources' other languages go as the English ones do.
    @Test(arguments: ["Bild: Jahr Media", "Crédits photos : Bestimage", "Źródło: ISBnews", "Zdjęcie: PAP", "Quelle: dpa"])
    func creditLinesInOtherLanguagesGo(line: String) throws {
        let text = try #require(try extract(page(body: "<article>\(fillerParagraphs(4))<p>\(line)</p></article>"))).text
        #expect(text.contains(filler[3]) && !text.contains(line))
    }
}

extension PrecisionRuleTests {
    /// A rail's title left standing in the sources' other languages, and a German "updated" line
    /// above the text, go as their English kin do.
    @Test func railTitlesAndUpdateLinesInOtherLanguagesGo() throws {
        let body = "<article><p>Aktualisiert: 11.04.2020, 10:27</p>\(fillerParagraphs(4))<h3>Das könnte dich auch interessieren</h3><p>Weitere Beiträge zum Thema</p></article>"
        let text = try #require(try extract(page(body: body))).text
        #expect(text.contains(filler[0]) && text.contains(filler[3]))
        for line in ["Aktualisiert", "Das könnte dich", "Weitere Beiträge"] { #expect(!text.contains(line), "\(line)") }
    }
}
