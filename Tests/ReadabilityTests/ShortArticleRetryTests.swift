import Testing
import HTMLDocument
@testable import Readability

/// A short post (under Readability.js's 500 characters) makes the extraction retry with its
/// unlikely-candidate rule, then its class weights, switched off; each retry took the longest
/// text it found, and on a blog that was the sidebar's "About me", a comment thread or a neutral
/// box beside the post. A retry whose pick lies where the strict attempts would not look is
/// astray (`isAstrayRetry`) and counts only when nothing else had a paragraph of text.
struct ShortArticleRetryTests {
    static let post = """
        <h1>Notes from the allotment</h1>
        <p>The beans finally came up this week, three weeks late, after the coldest May anyone on the site can remember.</p>
        <p>Next year I will start them indoors, as the old hands told me to, and keep the slugs off with copper tape.</p>
        """

    static let aboutMe = (0..<6).map { index in
        "<p>About me, part \(index): I have kept this plot for eleven years, and before that I grew tomatoes on a balcony, which taught me patience, humility and a great deal about aphids, greenfly and the ways of pigeons.</p>"
    }.joined()

    static func text(_ body: String) throws -> String {
        try #require(try extract(page(title: "Notes from the allotment", body: body))).text
    }

    @Test func aSidebarBesideAShortPostIsNotTakenForIt() throws {
        let text = try Self.text("<div class=\"entry\">\(Self.post)</div><div id=\"sidebar\">\(Self.aboutMe)</div>")
        #expect(text.contains("beans finally came up") && text.contains("copper tape"))
        #expect(!text.contains("About me"))
    }

    /// One long comment, no reply control: the comment's own classes say "comment", which the
    /// strict attempts remove or weigh down, so only the retries took it.
    @Test func aCommentWithoutReplyControlsAfterAShortPostIsNotTakenForIt() throws {
        let sentences = [
            "Lovely to read, mine came up late as well, and the pigeons had half of them before I put the netting over the whole bed.",
            "So I know exactly how you feel about this spring, and about the slugs, which were worse than any year I can remember.",
            "Copper tape works for a while, but beer traps, wool pellets and a torch at night did more for my lettuces than anything else.",
        ]
        let comment = "<div id=\"comments\"><ol class=\"commentlist\"><li class=\"comment\"><div class=\"comment-text\"><cite>Visitor</cite>"
            + paragraphs(sentences) + "</div></li></ol></div>"
        let text = try Self.text("<div id=\"main\"><div class=\"post\">\(Self.post)</div>\(comment)</div>")
        #expect(text.contains("beans finally came up") && text.contains("copper tape"))
        #expect(!text.contains("Visitor") && !text.contains("netting"))
    }

    /// The page names its article ("post-body"); a neutral box elsewhere on the page outscores it
    /// only once class weights are off, and that retry is astray.
    @Test func aNeutralBoxOutsideTheNamedArticleIsNotTakenForIt() throws {
        let box = (0..<2).map { index in
            "<p>Box note \(index): the seed library opens on Saturdays from ten, and members may take six packets a month, swap their own saved seed, borrow the long-handled tools, the wheelbarrow and the big sieve, and ask the volunteers, who have grown on this hill for decades, about anything at all.</p>"
        }.joined()
        let text = try Self.text("<div id=\"main\"><div class=\"post-body\">\(Self.post)</div></div><div><div><div><div><div class=\"box\">\(box)</div></div></div></div></div>")
        #expect(text.contains("beans finally came up"))
        #expect(!text.contains("Box note"))
    }

    /// A post inside a block the unlikely-candidate rule removes (a "header" left unclosed around
    /// the page): the first retry finds it, astray; the laxer retries after it took the whole page
    /// with its widgets, and no longer win.
    @Test func anAstrayRetryWinsOverTheLaxerRetriesAfterIt() throws {
        let widgets = [
            "The seed library opens on Saturdays from ten, and members may take six packets a month.",
            "Plot holders may borrow the long-handled tools, the wheelbarrow and the big sieve.",
            "Our volunteers have grown on this hill for decades, and will answer questions about anything.",
            "The water troughs are filled on Mondays and Thursdays, weather permitting, all summer.",
        ]
        let body = "<div id=\"wrap\"><div id=\"header\"><div><a href=\"/\">Home</a> <a href=\"/about\">About</a></div>"
            + "<div id=\"main\">\(Self.post)</div></div><div class=\"widget\">\(paragraphs(widgets[..<2]))</div>"
            + "<div class=\"widget\">\(paragraphs(widgets[2...]))</div></div>"
        let text = try Self.text(body)
        #expect(text.contains("beans finally came up") && text.contains("copper tape"))
        #expect(!text.contains("seed library") && !text.contains("water troughs"))
    }

    /// The retries still serve what they are for: an article hidden by the unlikely-candidate rule
    /// (a "banner" class) is found when the strict attempt finds nothing of a paragraph's length.
    @Test func anArticleOnlyTheRetriesFindIsStillFound() throws {
        let text = try Self.text("<div class=\"banner-wide\">\(fillerParagraphs(4))</div><div><p>Short line.</p></div>")
        #expect(text.contains(filler[0]) && text.contains(filler[3]))
    }
}
