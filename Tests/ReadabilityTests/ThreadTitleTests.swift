import Testing
import HTMLDocument
@testable import Readability

/// Blog engines render comments as plain blocks signed "Posted by: ... at ...", after a heading
/// saying "Comments" or "12 Responses to ...", with no reply control and no class name
/// Readability knows. What follows such a title in its container leaves the article.
struct ThreadTitleTests {
    static let post = """
        <h1>Why the ferry timetable changed</h1>
        <p>The winter timetable starts on Monday, with two fewer sailings a day on the northern route and a later first crossing.</p>
        <p>The operator says the change follows a survey of passengers, most of whom travel between eight and ten in the morning.</p>
        """

    static func comments(_ count: Int) -> String {
        (0..<count).map { index in
            "<div><p>Reader remark \(index): the early sailing was the only one that got me to work on time, and now I shall have to drive round the bay instead, which takes an hour longer.</p></div><p>Posted by: Visitor \(index) at November \(index + 1), 2012 9:42 AM</p>"
        }.joined()
    }

    static func text(_ body: String) throws -> String {
        try #require(try extract(page(title: "Why the ferry timetable changed", body: body))).text
    }

    @Test(arguments: ["Comments", "3 Comments:", "Comments (3)", "3 Responses to “Why the ferry timetable changed”", "Reader comments", "Comentarios"])
    func signedCommentsAfterAThreadTitleLeaveThePost(_ title: String) throws {
        let text = try Self.text("<div class=\"post\">\(Self.post)<h3>\(title)</h3>\(Self.comments(3))</div>")
        #expect(text.contains("winter timetable") && text.contains("survey of passengers"))
        #expect(!text.contains("Reader remark") && !text.contains("Posted by"))
    }

    /// A title whose id says "comments" leaves with Readability's unlikely candidates before the
    /// article is chosen; the thread after it still goes.
    @Test func theThreadGoesWhenItsTitleIsAnUnlikelyCandidate() throws {
        let text = try Self.text("<div>\(Self.post)<h2 id=\"comments\">Comments</h2>\(Self.comments(6))</div>")
        #expect(text.contains("winter timetable") && text.contains("survey of passengers"))
        #expect(!text.contains("Reader remark") && !text.contains("Posted by"))
    }

    /// The title alone in a wrapper (itself furniture by its class) heads what follows the wrapper.
    @Test func aTitleAloneInItsWrapperHeadsWhatFollowsTheWrapper() throws {
        let text = try Self.text("<div>\(Self.post)<div class=\"commentform\"><h2>Comments</h2></div>\(Self.comments(6))</div>")
        #expect(text.contains("winter timetable") && text.contains("survey of passengers"))
        #expect(!text.contains("Reader remark") && !text.contains("Posted by"))
    }

    /// A short post; the thread's title in a plain block, its comments (name, date, text) with no
    /// reply control and no class name. Once class weights were off, a retry took the title and
    /// the thread for the article.
    @Test func aRetryThatPicksTheThreadIsAstray() throws {
        let comments = (0..<8).map { index in
            "<div><div><b>Visitor \(index)</b></div><div>10/2\(index)/2012</div><div>Reader remark \(index): the early sailing was the only one that got me to work on time, and now I shall have to drive round the bay instead.</div></div>"
        }.joined()
        let body = "<div class=\"main-content\">\(Self.post)<div><div>8 Responses to “Why the ferry timetable changed”</div>"
            + "<div><div>\(comments)</div></div></div></div>"
        let text = try Self.text(body)
        #expect(text.contains("winter timetable") && text.contains("survey of passengers"))
        #expect(!text.contains("Reader remark"))
    }

    /// A bold label in a sentence of the article is no thread title.
    @Test func aBoldLabelInASentenceTitlesNothing() throws {
        let text = try Self.text("<div class=\"post\">\(Self.post)<p><b>Comments:</b> the operator declined to say how many passengers took part in the survey, or when.</p>\(fillerParagraphs(2))</div>")
        #expect(text.contains("declined to say how many passengers") && text.contains(filler[1]))
    }

    /// When the grab took the thread for the article, the thread stays rather than leaving nothing.
    @Test func aThreadTakenForTheArticleIsNotEmptied() throws {
        let text = try Self.text("<h3>Comments</h3>\(Self.comments(8))")
        #expect(text.contains("Reader remark"))
    }

    /// A title above the article in its container marks the article too; an article that starts
    /// inside the marks keeps its text.
    @Test func aTitleAboveTheArticleTakesNothing() throws {
        let text = try Self.text("<div><h3>Comments</h3>\(Self.post)\(fillerParagraphs(3))</div>")
        #expect(text.contains("winter timetable") && text.contains(filler[2]))
    }

    @Test func aHeadingThatIsOnlyTheWordInASentenceIsNotATitle() {
        #expect(Extractor.isThreadTitle("Comments"))
        #expect(Extractor.isThreadTitle("Leave a Reply"))
        #expect(!Extractor.isThreadTitle("Comments from the minister on the new route"))
        #expect(!Extractor.isThreadTitle("Replies to the consultation were mostly positive"))
        #expect(!Extractor.isThreadTitle("Response times"))
    }

    /// "3 Comments" as a link beside the post's date jumps to the thread; it titles nothing here.
    @Test func aLinkToTheThreadAboveThePostKeepsThePost() throws {
        let text = try Self.text("<div class=\"post\"><h4><a href=\"#comments\">3 Comments</a></h4>\(Self.post)</div>")
        #expect(text.contains("winter timetable") && text.contains("survey of passengers"))
    }

    /// Divs nested 480 deep, each with twenty empty elements and the word "Comments": reading
    /// every block's text would walk the tower once per level. Titles are found from the text
    /// nodes, each element around one read once and only up to a title's length.
    @Test func hostileNestingIsReadBoundedly() throws {
        let level = "<div>" + String(repeating: "<i></i>", count: 20) + "Comments"
        let html = page(title: "Why the ferry timetable changed",
                        body: String(repeating: level, count: 480) + String(repeating: "</div>", count: 480))
        let extractor = Extractor(document: try HTMLDocument.parse(html: html), url: "https://news.example.com/a", options: .init())
        let body = try #require(extractor.body)
        var nodes = 0
        body.forEachDescendant { _ in nodes += 1; return true }
        #expect(nodes >= 480 * 21)
        let before = extractor.arena.meter.visits
        extractor.markReplyControls(in: body)
        let visits = extractor.arena.meter.visits - before
        #expect(visits <= nodes * 24, "\(visits) visits for \(nodes) nodes")
    }
}

