import Foundation
import Testing
import FeedParser

@Suite("Recovery")
struct RecoveryTests {
    @Test func unescapedAmpersandsAndHTMLEntities() throws {
        let doc = try Fixture.parse("unescaped.xml")
        #expect(doc.recovered)
        #expect(doc.title == "Tom & Jerry News")
        let item = try #require(doc.items.first)
        #expect(item.title == "AT&T buys café chain — again")
        #expect(item.url == "https://tj.example.com/a?x=1&y=2")
        #expect(item.summary == "Price £5 & up © 2024")
    }

    @Test func truncatedDocumentKeepsCompleteItems() throws {
        let doc = try Fixture.parse("truncated.xml")
        #expect(doc.recovered)
        #expect(doc.title == "Cut short")
        #expect(doc.items.map(\.url).prefix(2) == ["https://cut.example.com/1", "https://cut.example.com/2"])
        #expect(doc.items[1].summary == "Still here")
        // The cut-off third item has no link: dropped, not invented.
        #expect(doc.dropped.map(\.reason) == ["missing link"])
    }

    @Test func garbageNamesTheLine() {
        do {
            _ = try Fixture.parse("garbage.txt")
            Issue.record("garbage parsed")
        } catch let error as FeedParseError {
            guard case .xml(let line, let message) = error else { Issue.record("wrong error \(error)"); return }
            #expect(line == 6)
            #expect(!message.isEmpty)
            #expect(error.description.hasPrefix("XML error at line 6: "))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func plainTextIsAnError() {
        #expect(throws: FeedParseError.self) { try Fixture.parse("plaintext.txt") }
        do {
            _ = try Fixture.parse("plaintext.txt")
        } catch let error as FeedParseError {
            #expect(error.description.contains("line 1"))
        } catch {}
    }

    @Test func wellFormedIsNotMarkedRecovered() throws {
        #expect(try Fixture.parse("rss092.xml").recovered == false)
    }

    @Test func mismatchedTagsRecovered() throws {
        let doc = try parseString("""
        <rss version="2.0"><channel><title>M</title>
        <item><title>Good</title><link>https://m.example/1</link></item>
        <item><title>Bad <b>bold</title><link>https://m.example/2</link></item>
        </channel></rss>
        """)
        #expect(doc.recovered)
        #expect(doc.items.first?.title == "Good")
    }
}
