import HTMLDocument
import Testing
@testable import Readability

/// The second opinion (issue 46): when Readability's winner is another block than the one the
/// publisher marked as the article (`<article>`, `itemprop="articleBody"`) and the marked block
/// holds several times its words, the marked block is the body. Pages written for this test.
struct SecondOpinionTests {
    static let article = [
        "The river authority opened the new flood gates on Monday after four years of building work, and the first high tide of the week passed the old town without a single street under water.",
        "Engineers had tested each of the twelve gates in the spring, lowering them one by one while divers checked the seals, and the authority said every one of them had closed within the time the design allowed.",
        "Shop owners on the quay, who had stacked sandbags against their doors every winter for a generation, watched the water rise against the new wall from the other side of the street.",
        "The gates cost more than the first estimate, mostly because the foundations had to go deeper than the surveys suggested, and the council will repay its share of the loan over thirty years.",
        "Insurers have already written to householders on the quay, saying that premiums should fall once the gates have come through a full winter without a breach, though none would say by how much.",
        "The old harbour wall, which the gates replace as the town's defence, will stay standing: the heritage board listed it last year, and the council plans to turn its top into a footpath.",
        "Fishermen, who had feared the gates would close the harbour mouth for hours at a time, said the first week had cost them less than a single tide, and their association thanked the engineers.",
        "Two more gates, for the smaller creek north of the town, are due to be finished next year, once the contractor has moved its floating crane from the river to the creek in the spring.",
        "The authority will publish the gate levels on its website at every tide, and it plans a public day in the summer when residents can walk through the control room and see the machinery.",
    ]

    /// A shop's opening-hours box: long enough (over 500 characters) to be a first attempt's
    /// whole text.
    static let hoursBox = """
        <div id="shop-hours"><p>Our shop on the market square is open Monday to Friday from nine in the morning until six in the evening, and on Saturdays from ten until four.</p>\
        <p>During these hours our staff are also glad to answer your questions by telephone, and orders placed before noon leave the warehouse on the same working day.</p>\
        <p>On public holidays the shop stays closed; deliveries resume on the next working day, and the online shop takes orders at any time of the day or night.</p>\
        <p>Parking is free for customers in the yard behind the shop, with two spaces kept for disabled drivers next to the side entrance.</p></div>
        """

    /// The article's own element is named like a sidebar, so the first attempt drops it as an
    /// unlikely candidate and keeps the hours box, which is long enough to end the search.
    static func gatesPage(articleOpen: String, articleClose: String = "</article>") -> String {
        page(title: "New flood gates hold back the first winter tide",
                              body: "\(hoursBox)\(articleOpen)\(paragraphs(article))\(articleClose)")
    }

    @Test func aMarkedArticleOutweighingTheWinnerIsTheBody() throws {
        let html = Self.gatesPage(articleOpen: #"<article class="sidebar">"#)
        let faithful = try #require(try extract(html, options: .init(enhancedCleaning: false))).text
        #expect(faithful.contains("market square"), "the faithful port keeps the hours box: the rule is what changes it")
        let text = try #require(try extract(html)).text
        #expect(text.contains("opened the new flood gates on Monday"))
        #expect(text.contains("see the machinery"))
        #expect(!text.contains("market square"))
    }

    /// Microdata names the body before any `<article>`; among `<article>`s (teaser cards beside
    /// the story) the one with the most paragraph text is the story.
    @Test(arguments: [
        (#"<article class="card"><p>Teaser</p></article><div itemprop="articleBody"><p>Body</p></div><article><p>A longer card text</p></article>"#, "Body"),
        (#"<article class="card"><p>Teaser</p></article><article><p>The story, longer than the cards</p></article><article><p>Card</p></article>"#, "The story, longer than the cards"),
    ])
    func theMarkedBody(_ body: String, _ expected: String) throws {
        let document = try HTMLDocument.parse(html: page(body: body))
        let extractor = Extractor(document: document, url: "https://news.example.com/a", options: .init())
        #expect(extractor.findMarkedBody()?.innerText == expected)
    }

    /// A marked block that does not outweigh the winner (a teaser card in an `<article>`) never
    /// replaces it.
    @Test func aShortMarkedBlockLeavesTheWinner() throws {
        let html = page(body: "<div class=\"story\">\(fillerParagraphs(6))</div><article class=\"sidebar\">\(paragraphs(Self.article.prefix(1)))</article>")
        let text = try #require(try extract(html)).text
        #expect(text.contains(filler[0]))
        #expect(!text.contains("flood gates"))
    }

    /// A winner inside the marked block shares its words: it stays as Readability chose it.
    @Test func aWinnerInsideTheMarkedBlockStays() throws {
        let html = page(body: "<article><div class=\"text\">\(paragraphs(Self.article))</div></article>")
        let text = try #require(try extract(html)).text
        #expect(text.contains("opened the new flood gates on Monday"))
        #expect(text.contains("see the machinery"))
    }
}
