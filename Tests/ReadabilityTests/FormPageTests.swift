import Testing
import HTMLDocument
@testable import Readability

/// Pages whose whole body sits in one `<form>` (ASP.NET's `form#aspnetForm`, with its hidden
/// `__VIEWSTATE` inputs) and table layouts with their text in `<td>` cells came out empty: the
/// form went as furniture when the page had no `<p>` text to weigh it by, as a form full of
/// controls when its hidden inputs were counted, or with its text when the serializer met it.
struct FormPageTests {
    static let sentences = [
        "The county council approved the new library budget on Tuesday, after a debate that lasted most of the afternoon and drew a large crowd of residents.",
        "Under the plan, the central branch will open on Sundays from March, and two smaller branches will extend their evening hours, paid for by savings elsewhere.",
        "Several members asked whether the savings were realistic, and the finance officer said the figures had been checked twice by an outside auditor.",
        "Residents who spoke during the public session were largely in favour, though some asked for more children's events and better parking at the main site.",
    ]
    static let hiddenInputs = """
        <input type="hidden" name="__VIEWSTATE" value="dDwtMTA4" /><input type="hidden" name="__EVENTTARGET" value="" />
        <input type="hidden" name="__EVENTARGUMENT" value="" />
        """

    static func text(_ body: String) throws -> String {
        try #require(try extract(page(title: "Library budget approved", body: body), url: "https://www.county.example/news/1")).text
    }

    /// A short story whose paragraphs are the form's own children: the form scores as a form and
    /// the pick climbs to the element around it.
    @Test func aFormWrappingTheStoryKeepsItsText() throws {
        let paragraphs = Self.sentences.map { "<p>\($0)</p>" }.joined()
        let text = try Self.text("<div id=\"page\"><form id=\"aspnetForm\" method=\"post\">\(Self.hiddenInputs)\(paragraphs)</form></div>")
        #expect(text.contains(Self.sentences[0]) && text.contains(Self.sentences[3]))
    }

    /// No `<p>` anywhere: the text is in the cells of a layout table inside the form.
    @Test func aTableLayoutInsideTheFormWithoutParagraphsKeepsItsText() throws {
        let cells = Self.sentences.map { "<div>\($0)</div>" }.joined()
        let menu = "<td><a href=\"/\">Home</a><br><a href=\"/news\">News</a><br><a href=\"/contact\">Contact</a></td>"
        let text = try Self.text("<form id=\"aspnetForm\" method=\"post\">\(Self.hiddenInputs)<table><tr>\(menu)<td>\(cells)</td></tr></table></form>")
        #expect(text.contains(Self.sentences[0]) && text.contains(Self.sentences[3]))
        #expect(!text.contains("Contact"))
    }

    /// On a page without paragraphs the share is counted in all the text: a search form holding
    /// little of it still goes.
    @Test func aSearchFormOnAPageWithoutParagraphsStillGoes() throws {
        let cells = Self.sentences.map { "<div>\($0)</div>" }.joined()
        let search = "<form action=\"/search\"><label>Search the whole county council website</label><input type=\"text\" name=\"q\"></form>"
        let text = try Self.text("<table><tr><td>\(search)</td></tr><tr><td>\(cells)</td></tr></table>")
        #expect(text.contains(Self.sentences[1]))
        #expect(!text.contains("Search the whole"))
    }
}
