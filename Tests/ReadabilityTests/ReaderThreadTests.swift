import Testing
import HTMLDocument
@testable import Readability

/// Server-rendered reader threads with neutral class names beside a short article: before the
/// reader-thread rule, fifteen comments of fifty words outscored the article and were stored as
/// its text. Each thread shape is a case; the lists that look alike but are the article's own
/// (letters to the editor, a Q&A whose answers say "reply" in a sentence, interleaved embeds)
/// must stay.
struct ReaderThreadTests {
    static let headline = TeaserListTests.headline

    static func comment(_ index: Int, style: String, nested: Bool = false) -> String {
        let author = "<div><b>Reader\(index)</b> wrote: <time>\(index + 1) hours ago</time></div>"
        let words = "Comment \(index) says the harbour logs should be digitised and the volunteers thanked for their patience with the faded ink and the archive's short opening hours this winter"
        let text = "<p>\(words).</p><p>\(words), again.</p>"
        let replies = nested ? "<ol>\(comment(index * 10 + 1, style: style))\(comment(index * 10 + 2, style: style))</ol>" : ""
        switch style {
        case "links":
            return "<li>\(author)\(text)<div><a href=\"#reply-\(index)\">Reply</a> <a href=\"#report-\(index)\">Report</a></div>\(replies)</li>"
        case "buttons":
            return "<article>\(author)\(text)<div><button type=\"button\">↩ Reply</button> <span>3</span></div>\(replies)</article>"
        case "icons":
            return "<div>\(author)\(text)<button aria-label=\"Reply\"><svg width=\"9\" height=\"9\"></svg></button>\(replies)</div>"
        default:  // Spanish and Portuguese sources
            return "<li>\(author)\(text)<a href=\"#r\(index)\">Responder</a>\(replies)</li>"
        }
    }

    static func thread(_ style: String, count: Int = 15) -> String {
        let items = (0..<count).map { comment($0, style: style, nested: $0 % 5 == 2) }.joined()
        let list = style == "links" || style == "spanish" ? "<ol>\(items)</ol>" : "<div>\(items)</div>"
        return "<section><h2>\(count) replies</h2>\(list)<form><textarea></textarea><button>Post</button></form></section>"
    }

    static func text(_ body: String) throws -> String {
        try #require(try extract(page(title: headline, body: body), url: TeaserListTests.url)).text
    }

    @Test(arguments: ["links", "buttons", "icons", "spanish"])
    func aThreadBesideAShortArticleIsLeftOut(_ style: String) throws {
        let text = try Self.text(TeaserListTests.shortArticle + Self.thread(style))
        #expect(text.contains("fourteen shipwrecks") && text.contains("divers have found timbers"))
        #expect(!text.contains("Comment 3 says") && !text.contains("Reader"))
        #expect(!text.contains("15 replies"), "the thread's heading goes with it")
    }

    @Test func aThreadAfterAParagraphArticleIsNotJoinedToIt() throws {
        let text = try Self.text("<article>\(fillerParagraphs(3))</article>" + Self.thread("links"))
        #expect(text.contains(filler[0]) && text.contains(filler[2]))
        #expect(!text.contains("Comment 0 says"))
    }

    /// Comments rendered as siblings of the article's own element, in the same container: only
    /// the comments go.
    @Test func commentsBesideTheArticleInOneContainerLeaveTheArticle() throws {
        let comments = (0..<12).map { Self.comment($0, style: "buttons") }.joined()
        let text = try Self.text("<main><div>\(fillerParagraphs(4))</div><h3>Replies</h3>\(comments)</main>")
        #expect(text.contains(filler[0]) && text.contains(filler[3]))
        #expect(!text.contains("Comment 5 says") && !text.contains("Replies"))
    }

    /// A list of `count` items inside `open` and `close`, each item carrying `marker N`.
    struct OwnList: Sendable {
        let name: String, marker: String, count: Int, open: String, close: String
        let item: @Sendable (Int) -> String
        var body: String { open + (0..<count).map(item).joined() + close }
    }

    /// Lists that look like threads but are the article's own:
    /// - letters to the editor: authors and paragraphs, no reply control;
    /// - answers saying "reply" inside a sentence: text, not a control;
    /// - embedded posts with reply links between the article's paragraphs: most children are
    ///   paragraphs, so the container is no thread;
    /// - posts from a social network whose "Reply" goes to the network.
    static let articlesOwnLists: [OwnList] = [
        OwnList(name: "letters to the editor", marker: "Letter writer", count: 6, open: "<article><p>\(filler[1])</p>", close: "</article>") {
            "<div><p>\(filler[$0 % 4])</p><p><b>Letter writer \($0)</b>, Carver Falls</p></div>" },
        OwnList(name: "answers saying reply in a sentence", marker: "Question", count: 5, open: "<article><p>\(filler[0])</p><ul>", close: "</ul></article>") {
            "<li><p>\(filler[$0 % 4])</p><p>Question \($0): <a href=\"/faq/\($0)\">reply</a> to the council by post, says the guide.</p></li>" },
        OwnList(name: "embeds between paragraphs", marker: "Post number", count: 4, open: "<article>", close: "</article>") {
            "<p>\(filler[$0])</p><blockquote><p>Post number \($0) from the scene of the fire.</p><a href=\"#\($0)\">Reply</a></blockquote>" },
        OwnList(name: "embedded posts replying off-site", marker: "Post number", count: 5, open: "<article>\(fillerParagraphs(1))<div>", close: "</div></article>") {
            "<div><p>Post number \($0) from the scene of the fire, with a picture of the ridge.</p><a href=\"https://social.example.org/intent/reply?to=\($0)\">Reply</a></div>" },
    ]

    @Test(arguments: articlesOwnLists.indices)
    func theArticlesOwnListsStay(_ index: Int) throws {
        let list = Self.articlesOwnLists[index]
        let text = try Self.text(list.body)
        for item in 0..<list.count { #expect(text.contains("\(list.marker) \(item)"), "\(list.name): item \(item)") }
    }

    @Test func twoCommentsAreNotAThread() throws {
        for (count, isThread) in [(2, false), (3, true)] {
            let items = (0..<count).map { Self.comment($0, style: "links") }.joined()
            let html = page(title: Self.headline, body: "<ol>\(items)</ol>")
            let extractor = Extractor(document: try HTMLDocument.parse(html: html), url: TeaserListTests.url, options: .init())
            extractor.markReplyControls(in: try #require(extractor.body))
            let list = try #require(extractor.root.elements("ol").first)
            #expect(extractor.threadComments(list).count == (isThread ? count : 0), "\(count) comments")
        }
    }

    @Test(arguments: ["Reply", " ↩ reply ", "REPLY »", "Responder", "répondre"])
    func replyWords(_ text: String) { #expect(Extractor.isReplyWord(text)) }

    @Test(arguments: ["", "Reply all", "Replies", "Reply to this story by post", "→"])
    func notReplyWords(_ text: String) { #expect(!Extractor.isReplyWord(text)) }

    /// Spans nested 480 deep, each ending in "Reply", and 1,000 sibling links: reading each
    /// candidate control's whole subtree would visit the tower once per level. Each candidate is
    /// read for at most `replyControlMaximumNodes` nodes, and each element is marked once.
    @Test func hostileNestingIsReadBoundedly() throws {
        let tower = String(repeating: "<span>", count: 480) + String(repeating: "Reply</span>", count: 480)
        let links = String(repeating: "<a href=\"#r\">Reply</a>", count: 1_000)
        let html = page(title: Self.headline, body: "<div>\(tower)</div><div>\(links)</div>")
        let extractor = Extractor(document: try HTMLDocument.parse(html: html), url: TeaserListTests.url, options: .init())
        let body = try #require(extractor.body)
        let elements = extractor.root.elements(["span", "a"])
        #expect(elements.count >= 1_480)
        extractor.markReplyControls(in: body)
        #expect(extractor.replyControlNodesVisited <= elements.count * (Extractor.replyControlMaximumNodes + 1))
        #expect(extractor.replyControlNodesVisited > 0)
    }
}

/// The ASCII shortcut of `isReplyWord` against the scalar reading it skips.
@Suite struct ReplyWordShortcutTests {
    @Test func asciiTextsAnswerAsTheScalarReadingDoes() {
        let pieces = ["Reply", "reply", "REPLY", "Responder", "rePlY", " ", "»", "1", "-", "x", "Replies", "re", "ply", "#", "\t"]
        var generator = SystemRandomNumberGenerator()  // a failure prints its case
        for _ in 0..<3_000 {
            let text = (0..<Int.random(in: 0...4, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            let scalars = text.lowercased().unicodeScalars
            var expected = false
            if let first = scalars.firstIndex(where: \.properties.isAlphabetic), let last = scalars.lastIndex(where: \.properties.isAlphabetic) {
                expected = Extractor.replyWords.contains(String(scalars[first...last]))
            }
            #expect(Extractor.isReplyWord(text) == expected, "\(text)")
        }
    }
}
