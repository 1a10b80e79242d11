import Testing
import HTMLDocument
@testable import Readability

/// Link-dense lines and lists are teasers only when they point back into the site: a list of
/// links to other sites (sources, bug reports, documents) is the article's own content.
struct SiteLinkTests {
    static let externalList = """
        <p>In progress this week:</p><ul>
        <li><a href='https://bugs.example.org/show?id=101'>Bug 101 – Fullscreen window is affected by switching source</a></li>
        <li><a href='https://bugs.example.org/show?id=102'>Bug 102 – Add telemetry for tracking multiple windows</a></li>
        <li><a href='http://docs.other.example.net/guide'>The updated migration guide for extension authors</a></li></ul>
        """
    static let siteList = """
        <ul><li><a href='/2024/05/trains.html'>Trains cancelled again as the strike enters a third week</a></li>
        <li><a href='https://www.news.example.com/2024/05/budget.html'>Council approves the budget after a long night</a></li>
        <li><a href='//news.example.com/2024/05/port.html'>The harbour reopens to ferries on Monday</a></li></ul>
        """

    @Test func listsOfLinksToOtherSitesStayListsIntoTheSiteGo() throws {
        let html = page(body: "<article>\(fillerParagraphs(2))\(Self.externalList)\(fillerParagraphs(4))\(Self.siteList)</article>")
        let article = try #require(try extract(html))
        #expect(article.text.contains("Bug 101 – Fullscreen window"))
        #expect(article.text.contains("migration guide for extension authors"))
        #expect(!article.text.contains("Trains cancelled again"))
        #expect(!article.text.contains("Council approves the budget"))
        #expect(!article.text.contains("harbour reopens"))
    }

    @Test func aLineThatIsOneOutsideLinkIsKept() throws {
        let outside = "<p><a href='https://www.who.int/report'>Read the full report from the health agency here</a></p>"
        let inside = "<p><a href='/2024/05/other.html'>Another story from our newsroom on the same subject</a></p>"
        let html = page(body: "<article>\(fillerParagraphs(3))\(outside)\(inside)\(fillerParagraphs(3))</article>")
        let article = try #require(try extract(html))
        #expect(article.text.contains("full report from the health agency"))
        #expect(!article.text.contains("Another story from our newsroom"))
    }

    @Test func hostsCompareWithoutWWWPortCaseAndUserinfo() {
        #expect(Extractor.comparableHost("WWW.News.Example.com:443") == "news.example.com")
        #expect(Extractor.comparableHost("user@news.example.com") == "news.example.com")
        #expect(Extractor.comparableHost("[2001:db8::1]") == "[2001:db8::1]")
        #expect(Extractor.comparableHost("news.example.com") != Extractor.comparableHost("blog.example.com"))
    }
}
