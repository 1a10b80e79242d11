import Testing
import HTMLDocument
@testable import Readability

/// Rails of teasers for other stories ("More stories", "Most read") beside a short article: before
/// the teaser-list rule, a 20-teaser rail outscored a five-paragraph article, or was joined to it as
/// a sibling. Each shape news sites use is a case, with no telling class name; the lists that look
/// alike but are the article's own (a roundup's long entries, a gallery's image links, a reading
/// list of other sites) must stay.
struct TeaserListTests {
    static let url = "https://news.example.com/2024/05/story.html"
    static let headline = "Old harbour records reveal forgotten shipwrecks"

    /// A short article in an old table layout with `<br>` paragraphs: little for Readability to score.
    static let shortArticle = """
        <table><tr><td><font size="5"><b>\(headline)</b></font><br><br><font face="Arial">\
        Volunteers transcribing handwritten harbour logs have identified fourteen shipwrecks that were never recorded.<br><br>\
        The logs were kept by harbour masters who noted every vessel that entered or left port, with the weather and cargo.<br><br>\
        By matching gaps with newspaper reports and insurance claims, volunteers pieced together the last voyages of several traders.<br><br>\
        Maritime archaeologists say the findings could help them locate wrecks, and divers have found timbers from one ship.\
        </font></td></tr></table>
        """

    static func teaserHeadline(_ index: Int) -> String { "Teaser headline number \(index) about another story" }
    static let teaserSummary = "A summary of another story on this site that is long enough to score as a paragraph here."

    static func rail(_ style: String, count: Int = 20) -> String {
        let items = (0..<count).map { index in
            let href = "/news/\(index)-story"
            switch style {
            case "wrapped":
                return "<li><a href=\"\(href)\"><img src=\"/t/\(index).jpg\"><h3>\(teaserHeadline(index))</h3></a><p>\(teaserSummary)</p><span>\(index) minutes ago</span></li>"
            case "grid":
                return "<article><a href=\"\(href)\"><img src=\"/t/\(index).jpg\"></a><h3><a href=\"\(href)\">\(teaserHeadline(index))</a></h3><p>\(teaserSummary)</p></article>"
            default:
                return "<li><span>\(index + 1)</span><a href=\"https://news.example.com\(href)\">\(teaserHeadline(index))</a></li>"
            }
        }.joined()
        let list = style == "grid" ? "<div>\(items)</div>" : style == "ranked" ? "<ol>\(items)</ol>" : "<ul>\(items)</ul>"
        return "<section><h2>More stories</h2>\(list)</section>"
    }

    static func text(_ body: String) throws -> String {
        try #require(try extract(page(title: headline, body: body), url: url)).text
    }

    @Test(arguments: ["wrapped", "grid", "ranked"])
    func aRailBesideAShortArticleIsLeftOut(_ style: String) throws {
        let text = try Self.text(Self.shortArticle + Self.rail(style))
        #expect(text.contains("fourteen shipwrecks") && text.contains("divers have found timbers"))
        #expect(!text.contains("Teaser headline") && !text.contains(Self.teaserSummary))
        #expect(!text.contains("More stories"), "the rail's title goes with it")
    }

    /// A rail inside the article body, between paragraphs, with its title.
    @Test(arguments: ["wrapped", "grid", "ranked"])
    func aRailInsideTheArticleGoesWithItsTitle(_ style: String) throws {
        let body = "<article>\(fillerParagraphs(2))\(Self.rail(style, count: 6))\(fillerParagraphs(4))</article>"
        let text = try Self.text(body)
        #expect(text.contains(filler[1]) && text.contains(filler[3]))
        #expect(!text.contains("Teaser headline") && !text.contains("More stories"))
    }

    @Test func aRailBesideAParagraphArticleIsNotJoinedToIt() throws {
        let text = try Self.text("<article>\(fillerParagraphs(3))</article>" + Self.rail("wrapped"))
        #expect(text.contains(filler[0]) && text.contains(filler[2]))
        #expect(!text.contains("Teaser headline") && !text.contains(Self.teaserSummary))
    }

    /// Cards whose headline link stands on a line of its own above a date and a summary, and
    /// cards whose headline is plain text with a "Read more..." link into the site, also when
    /// their summary is a story's length (the link says the story is elsewhere).
    @Test(arguments: ["standalone", "read more", "long read more"])
    func cardsWithAStandaloneHeadlineOrAReadMoreLinkAreTeasers(_ style: String) throws {
        let summary = style == "long read more" ? "\(Self.teaserSummary) \(filler[1])" : Self.teaserSummary
        let cards = (0..<12).map { index in
            style == "standalone"
                ? "<div><div><a href=\"/news/\(index)\">\(Self.teaserHeadline(index))</a></div><div>updated 9:4\(index) AM, Wed</div><div>\(summary)</div></div>"
                : "<li><h4>\(Self.teaserHeadline(index))</h4><p>\(summary) <a href=\"/news/\(index)\">Read more...</a></p><p>2012-11-0\(index + 1)</p></li>"
        }.joined()
        let rail = style == "standalone" ? "<div>\(cards)</div>" : "<ul>\(cards)</ul>"
        let text = try Self.text(Self.shortArticle + rail)
        #expect(text.contains("fourteen shipwrecks") && text.contains("divers have found timbers"))
        #expect(!text.contains("Teaser headline") && !text.contains(Self.teaserSummary))
    }

    /// A sidebar holding a rail among other things (dividers, a poll, a note): the teasers go, the
    /// rest is left to the other rules.
    @Test func aContainerOfMostlyTeasersLosesTheTeasersOnly() throws {
        let cards = (0..<5).map { index in
            "<div><h3><a href=\"/news/\(index)\">\(Self.teaserHeadline(index))</a></h3><p>\(Self.teaserSummary)</p></div><div class=\"divider\"></div>"
        }.joined()
        let others = "<div><p>Which harbour walk do you like best? The old quay, the new pier or the lighthouse path.</p></div>"
            + "<div><p>Our archive volunteers meet on Thursdays in the reading room of the town library.</p></div>"
        let node = try #require(try Self.firstNode("div", "<div>\(cards)\(others)</div>\(Self.shortArticle)"))
        let rail = try #require(node.extractor.teaserRail(node.list))
        #expect(rail.teasers.count == 5 && !rail.isWhole, "dividers do not count; the two notes do")
    }

    /// A roundup whose entries each link to their subject: the entries are stories, not teasers.
    @Test func aRoundupOfLongEntriesStays() throws {
        let entries = (0..<6).map { index in
            "<li><h3><a href=\"/reviews/\(index)\">Book number \(index), reviewed at length</a></h3><p>\(filler[index % 4]) \(filler[(index + 1) % 4])</p></li>"
        }.joined()
        let text = try Self.text("<article><p>\(filler[0])</p><ul>\(entries)</ul></article>")
        for index in 0..<6 { #expect(text.contains("Book number \(index)"), "entry \(index)") }
    }

    /// "What we know so far" and timelines link earlier coverage from inside their sentences.
    @Test func aListOfSentencesLinkingEarlierCoverageStays() throws {
        let items = [
            "Police <a href=\"/news/1\">arrested two men near the harbour</a> on Tuesday evening.",
            "2019: the council <a href=\"/news/2\">approved the first phase of the works</a>, costing £2m.",
            "Residents <a href=\"/news/3\">were told to stay indoors overnight</a> as the fire spread.",
            "The mayor said the inquiry <a href=\"/news/4\">would report before the summer</a> recess.",
        ].map { "<li>\($0)</li>" }.joined()
        let text = try Self.text("<article>\(fillerParagraphs(2))<h3>What we know</h3><ul>\(items)</ul>\(fillerParagraphs(3))</article>")
        #expect(text.contains("arrested two men near the harbour") && text.contains("would report before the summer"))
    }

    /// A gallery's thumbnails link to the pictures: no headline in the link, so no teasers. (The
    /// captions' own fate is the caption rules' business: asked of the list rule only.)
    @Test func aGalleryOfImageLinksIsNoRail() throws {
        let figures = (0..<8).map { index in
            "<figure><a href=\"/photos/\(index).jpg\"><img src=\"/photos/\(index)-small.jpg\"></a><figcaption>Crews at work on the burning ridge, picture \(index).</figcaption></figure>"
        }.joined()
        let gallery = try #require(try Self.firstNode("div", "<article>\(fillerParagraphs(2))<div>\(figures)</div></article>"))
        #expect(gallery.list.elementChildCount == 8)
        #expect(!(gallery.extractor.teaserRail(gallery.list)?.isWhole == true))
    }

    /// Sources and documents on other sites are part of the article.
    @Test func aReadingListOfOtherSitesStays() throws {
        let sources = (0..<6).map { index in
            "<li><a href=\"https://journal\(index).example.org/paper\">The full study published by journal number \(index)</a></li>"
        }.joined()
        let text = try Self.text("<article>\(fillerParagraphs(4))<h3>Sources</h3><ul>\(sources)</ul></article>")
        #expect(text.contains("journal number 0") && text.contains("journal number 5"))
    }

    @Test func threeTeasersAreNotARail() throws {
        let article = Self.shortArticle
        let list = (0..<3).map { "<li><a href=\"/news/\($0)\"><h3>\(Self.teaserHeadline($0))</h3></a></li>" }.joined()
        let node = try #require(try Self.firstNode("ul", "<ul>\(list)</ul>\(article)"))
        #expect(!(node.extractor.teaserRail(node.list)?.isWhole == true))
        let four = (0..<4).map { "<li><a href=\"/news/\($0)\"><h3>\(Self.teaserHeadline($0))</h3></a></li>" }.joined()
        let rail = try #require(try Self.firstNode("ul", "<ul>\(four)</ul>\(article)"))
        #expect((rail.extractor.teaserRail(rail.list)?.isWhole == true))
    }

    /// Containers nested 400 deep, each holding three small items and the next container: a walk
    /// of each item's whole subtree would visit the tower once per level. The walk stops at
    /// `teaserMaximumNodes`, so the visits stay within that many per element.
    @Test func nestedContainersAreLookedAtBoundedly() throws {
        let level = "<div><span>a</span><span>b</span><span>c</span>"
        let html = page(title: Self.headline, body: String(repeating: level, count: 400) + String(repeating: "</div>", count: 400))
        let extractor = Extractor(document: try HTMLDocument.parse(html: html), url: Self.url, options: .init())
        let elements = extractor.root.elements(["div", "span"])
        #expect(elements.count >= 1_600)
        for element in elements { _ = extractor.teaserRail(element) }
        #expect(extractor.teaserNodesVisited <= elements.count * (Extractor.teaserMaximumNodes + 1))
        #expect(extractor.teaserNodesVisited > 0)
    }

    /// The page's first element named `tag`, with an extractor for it.
    static func firstNode(_ tag: String, _ body: String) throws -> (extractor: Extractor, list: DNode)? {
        let document = try HTMLDocument.parse(html: page(title: headline, body: body))
        let extractor = Extractor(document: document, url: url, options: .init())
        guard let list = extractor.root.elements(tag).first else { return nil }
        return (extractor, list)
    }
}
