import Testing
import HTMLDocument
@testable import Readability

/// The next story rendered below the article ("Up next"): two sibling `<article>`s that the
/// sibling merge joined, so two stories were stored as one. Live blogs, whose entries are
/// `<article>`s too, and articles with a short related card keep everything.
struct OtherStoriesTests {
    static let title = "Harbour logs reveal forgotten shipwrecks"
    static let next = "School roof to be replaced over the summer"
    static let schoolParagraphs = [
        "The council has approved a plan to replace the roof of the primary school over the summer holidays, after pupils spent much of the winter in temporary classrooms.",
        "Contractors will begin work the day after term ends, and the council said the building would be ready for the new school year in September, weather permitting.",
        "Parents had campaigned for the repairs since a storm damaged the roof in November, forcing the closure of four classrooms and the school hall for several months.",
        "The head teacher said staff and pupils were relieved and thanked parents for their patience while the school made do with portable buildings in the playground.",
    ]

    static func story(_ headline: String, _ paragraphs: [String], heading: String = "h1") -> String {
        "<article><\(heading)>\(headline)</\(heading)><p>By Staff Reporter</p>" + paragraphs.map { "<p>\($0)</p>" }.joined() + "</article>"
    }

    static func text(_ body: String) throws -> String {
        let html = "<html><head><title>\(title) | Coast Courier</title></head><body><main>\(body)</main></body></html>"
        return try #require(try extract(html, url: "https://www.coastcourier.example/news/harbour")).text
    }

    @Test func theNextStoryIsNotJoinedToTheArticle() throws {
        let text = try Self.text(Self.story(Self.title, Array(filler.prefix(4))) + "<div><p>Up next</p></div>"
            + Self.story(Self.next, Self.schoolParagraphs, heading: "h2"))
        #expect(text.contains(filler[0]) && text.contains(filler[3]))
        #expect(!text.contains("primary school") && !text.contains("Up next"))
    }

    /// Live-page entries, each an `<article>` with an `h2` and three paragraphs.
    static func entries(_ count: Int) -> String {
        (0..<count).map { index in
            "<article><h2>Update \(index): the search widens</h2><p>\(filler[index % 4])</p><p>\(filler[(index + 1) % 4])</p><p>\(filler[(index + 2) % 4])</p></article>"
        }.joined()
    }

    /// Live pages keep their entries: three inside the titled article, or five beside it (the
    /// titled article with its own `<article>`).
    @Test(arguments: [(3, true), (5, false)])
    func liveEntriesStay(_ count: Int, inside: Bool) throws {
        let titled = "<article><h1>\(Self.title)</h1><p>\(filler[3])</p>"
        let text = try Self.text(inside ? titled + Self.entries(count) + "</article>" : titled + "</article>" + Self.entries(count))
        for index in 0..<count { #expect(text.contains("Update \(index)"), "entry \(index)") }
    }

    /// The second part of the same story, headed much like it, stays.
    @Test func aContinuationWithTheSameHeadlineStays() throws {
        let text = try Self.text(Self.story(Self.title, Array(filler.prefix(3)))
            + Self.story("Harbour logs reveal forgotten shipwrecks, part two", Self.schoolParagraphs, heading: "h2"))
        #expect(text.contains(filler[0]) && text.contains("primary school"))
    }
}

extension OtherStoriesTests {
    /// Thousands of `<article>`s side by side, and a tower of nested ones: the walk stops at the
    /// fourth side-by-side one and never enters an article, so it is never quadratic.
    @Test func articlesAreCountedInOneShortWalk() throws {
        let manyHtml = "<html><body>" + String(repeating: "<article><p>\(filler[0])</p></article>", count: 5_000) + "</body></html>"
        let many = Extractor(document: try HTMLDocument.parse(html: manyHtml), url: "https://x.example/", options: .init())
        let manyBody = try #require(many.body)
        var before = many.arena.meter.visits
        #expect(many.outermostArticles(in: manyBody, atMost: 3) == nil)
        #expect(many.arena.meter.visits - before <= 20, "stops at the fourth article")

        let towerHtml = "<html><body>" + String(repeating: "<article><p>x</p>", count: 480) + String(repeating: "</article>", count: 480) + "</body></html>"
        let tower = Extractor(document: try HTMLDocument.parse(html: towerHtml), url: "https://x.example/", options: .init())
        let towerBody = try #require(tower.body)
        before = tower.arena.meter.visits
        #expect(tower.outermostArticles(in: towerBody, atMost: 3)?.count == 1)
        #expect(tower.arena.meter.visits - before <= 5, "the outer article's inside is skipped")
    }
}
