import Foundation
import Testing
import FeedParser

@Suite("Formats")
struct FormatTests {
    @Test func rss20ChannelAndItems() throws {
        let doc = try Fixture.parse("rss20.xml")
        #expect(doc.format == .rss20)
        #expect(doc.recovered == false)
        #expect(doc.title == "Example & News")
        #expect(doc.link == "https://news.example.com/")
        #expect(doc.language == "en-us")
        #expect(doc.ttlMinutes == 30)
        // The untitled item takes its title from its description (RSS 2.0: title or description).
        #expect(doc.items.map(\.title) == ["First story & more", "Relative link story", "An item without a title",
                                           "Feedburner item", "Guid permalink only"])
        let first = try #require(doc.items.first)
        #expect(first.url == "https://news.example.com/2024/first?b=2&a=1")
        #expect(first.guid == "tag:news.example.com,2024:1")
        #expect(first.author == "Jane Doe")
        #expect(first.publishedAt == utc(2003, 6, 10, 4))
        #expect(first.summary == "Lead paragraph with a link. Second paragraph.")
        #expect(first.content == "Heading\n\nBody one text.\n\nBody two\nline")
        #expect(first.thumbnailURL == "https://cdn.example.com/thumb1.jpg")
        #expect(first.mediaType == nil)
    }

    @Test func rss20RelativeLinksAndFallbacks() throws {
        let doc = try Fixture.parse("rss20.xml")
        let relative = try #require(doc.items.first { $0.title == "Relative link story" })
        #expect(relative.url == "https://feeds.example.com/2024/relative")
        #expect(relative.thumbnailURL == "https://cdn.example.com/photo.png")
        #expect(relative.publishedAt == utc(2003, 6, 11, 2))
        #expect(relative.summary == "Plain description text with no markup")
        #expect(relative.content == nil)
        let burner = try #require(doc.items.first { $0.title == "Feedburner item" })
        #expect(burner.url == "https://news.example.com/real-article")
        #expect(burner.summary == "Desc with entity é and a bidioverride\u{200F}.")
        let guidOnly = try #require(doc.items.last)
        #expect(guidOnly.url == "https://news.example.com/permalink-guid")
        #expect(guidOnly.author == "Ed Itor")
    }

    @Test func rss20DropReasons() throws {
        let doc = try Fixture.parse("rss20.xml")
        #expect(doc.dropped.map(\.reason) == ["missing link", "unsafe link"])
        #expect(doc.dropped.map(\.title) == ["No link at all", "Script link"])
        #expect(doc.droppedCount == 2)
    }

    @Test func rss091WithNetscapeDTDEntities() throws {
        let doc = try Fixture.parse("rss091.xml")
        #expect(doc.format == .rss091)
        #expect(doc.language == "fr")
        let item = try #require(doc.items.first)
        #expect(item.title == "Café ouvert — enfin")
        #expect(item.summary == "Le café est ouvert.")
    }

    @Test func rss092Enclosure() throws {
        let doc = try Fixture.parse("rss092.xml")
        #expect(doc.format == .rss092)
        let item = try #require(doc.items.first)
        #expect(item.summary == "Episode one")
        #expect(item.mediaType == "podcast")
        #expect(item.mediaURL == "http://radio.example.com/show1.mp3")
        #expect(item.mediaMimeType == "audio/mpeg")
    }

    @Test func rss090RDF() throws {
        let doc = try Fixture.parse("rss090.rdf")
        #expect(doc.format == .rss090)
        #expect(doc.title == "Mozilla Dot Org")
        #expect(doc.items.map(\.url) == ["http://www.mozilla.org/status/", "http://www.mozilla.org/bugs/"])
    }

    @Test func rss10RDF() throws {
        let doc = try Fixture.parse("rss10.rdf")
        #expect(doc.format == .rss10)
        #expect(doc.language == "de")
        #expect(doc.items.count == 2)
        let a = doc.items[0]
        #expect(a.author == "Max Mustermann")
        #expect(a.publishedAt == utc(2024, 3, 5, 9, 20, 30))
        #expect(a.content == "Full A\n\nPart two")
        #expect(a.summary == "Summary of A")
        #expect(doc.items[1].publishedAt == utc(2024, 3, 4))
        #expect(doc.items[1].summary == nil)
    }

    @Test func atom03() throws {
        let doc = try Fixture.parse("atom03.xml")
        #expect(doc.format == .atom03)
        #expect(doc.language == "en")
        #expect(doc.link == "http://atom03.example.com/")
        let e = try #require(doc.items.first)
        #expect(e.url == "http://atom03.example.com/2004/01/entry")
        #expect(e.guid == "tag:atom03.example.com,2004:1")
        #expect(e.publishedAt == utc(2004, 1, 1, 15))
        #expect(e.updatedAt == utc(2004, 1, 2, 10))
        #expect(e.summary == "Plain summary <not a tag>")
        #expect(e.content == "Escaped HTML body")
        #expect(e.author == "Feed Author")
    }

    @Test func atom10WithXMLBase() throws {
        let doc = try Fixture.parse("atom10.xml")
        #expect(doc.format == .atom10)
        #expect(doc.title == "Blog <Atom>")
        #expect(doc.link == "https://blog.example.net/")
        #expect(doc.language == "en-gb")
        let one = doc.items[0]
        #expect(one.url == "https://blog.example.net/posts/2024/one.html")
        #expect(one.publishedAt == utc(2024, 5, 1, 6, 30))
        #expect(one.updatedAt == utc(2024, 5, 2, 8, 30))
        #expect(one.author == "Entry Writer")
        #expect(one.summary == "The summary")
        #expect(one.content == "XHTML para & one\n\nPara two")
        #expect(one.thumbnailURL == "https://blog.example.net/posts/2024/pics/a.jpg")
        #expect(one.mediaType == "video")
        #expect(one.mediaURL == "https://media.example.net/one.mp4")
        #expect(one.mediaMimeType == "video/mp4")
        let two = doc.items[1]
        #expect(two.title == "Entry <two> without author")
        #expect(two.author == "Blog Owner")
        #expect(two.content == "Line one\nLine two")
        #expect(two.publishedAt == nil)
        #expect(two.effectiveDate == utc(2024, 4, 1))
    }

    @Test func notAFeedAndEmpty() {
        #expect(throws: FeedParseError.notAFeed(root: "html")) { try Fixture.parse("page.html") }
        #expect(throws: FeedParseError.empty) { try parseString("  \n ") }
        #expect(FeedParseError.notAFeed(root: "html").description == "not a feed: root element <html>")
    }

    /// Text that only mentions a feed element (a README) is named for what it is; the message
    /// quotes at most 40 bytes of its first line however long the text is.
    @Test func textIsNotXML() {
        let readme = "# pulse-ingest\n\nA lone `<entry>` as the root is read as Atom.\n"
        #expect(throws: FeedParseError.notXML(start: "# pulse-ingest")) { try parseString(readme) }
        let long = String(repeating: " ", count: 1_000_000) + String(repeating: "x", count: 50_000) + " <entry>"
        #expect(throws: FeedParseError.notXML(start: String(repeating: "x", count: 40))) { try parseString(long) }
    }
}
