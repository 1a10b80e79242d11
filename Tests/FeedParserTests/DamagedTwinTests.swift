import Foundation
import Testing
import FeedParser

/// Class 1 of issue 10: a damaged document must give, for every item away from the damage,
/// exactly the entry its hand-repaired twin gives (every field). The items carry the text that
/// libxml2's recovery used to lose after the first error: `&amp; &lt; &gt; &quot;` in titles,
/// escaped HTML and query strings.
@Suite("Damaged documents against their repaired twins")
struct DamagedTwinTests {
    static func item(_ n: Int, title: String? = nil, description: String? = nil) -> String {
        """
        <item>
          <title>\(title ?? "Red, Whine, &amp; Blue &quot;\(n)&quot; &lt;3 &gt; all")</title>
          <link>https://news.example.com/story?id=\(n)&amp;ref=rss</link>
          <guid isPermaLink="false">tag:news.example.com,2024:\(n)</guid>
          <description>\(description ?? "&lt;p&gt;Well &quot;said&quot; &amp;amp; done &lt;span class=\"x\"&gt;part \(n)&lt;/span&gt;&lt;/p&gt;")</description>
          <pubDate>Mon, 0\(n) Jan 2024 10:00:00 GMT</pubDate>
          <author>ed@example.com (Ed &amp; Co \(n))</author>
          <enclosure url="https://cdn.example.com/ep?n=\(n)&amp;f=mp3" type="audio/mpeg" length="1"/>
        </item>
        """
    }

    static func document(_ items: [String], prolog: String = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n",
                         close: Bool = true) -> String {
        prolog + "<rss version=\"2.0\"><channel><title>Tom &amp; Jerry</title><link>https://news.example.com/</link>\n"
            + items.joined(separator: "\n") + (close ? "\n</channel></rss>\n" : "")
    }

    struct Case {
        var name: String
        var damaged: [UInt8]
        var repaired: String
        /// Guid number of the damaged item (excluded from the comparison), or nil.
        var damagedItem: Int?
    }

    static let good = (1...4).map { item($0) }

    static var cases: [Case] {
        let repaired = document(good)
        let bodyOnly = document(good, prolog: "")
        var list: [Case] = [
            Case(name: "blank line before <?xml", damaged: Array(("\n\n" + repaired).utf8), repaired: repaired),
            Case(name: "BOM and whitespace before <?xml", damaged: [0xEF, 0xBB, 0xBF] + Array((" \r\n" + repaired).utf8), repaired: repaired),
            Case(name: "PHP warning before <?xml",
                 damaged: Array(("<br />\n<b>Warning</b>:  Cannot modify header information - headers already sent by "
                    + "(output started at /var/www/feed.php:3) in <b>/var/www/feed.php</b> on line <b>12</b><br />\n" + repaired).utf8),
                 repaired: repaired),
            Case(name: "PHP notice before a document without a declaration",
                 damaged: Array(("Notice: Undefined index: page in /srv/rss.php on line 4\n" + bodyOnly).utf8), repaired: bodyOnly),
        ]
        // Truncated in the middle of item 4: the twin simply ends after item 3.
        let full = document(good)
        let cut = full.range(of: "part 4")!.lowerBound
        list.append(Case(name: "truncated end", damaged: Array(full[..<cut].utf8),
                         repaired: document(Array(good.prefix(3))), damagedItem: 4))
        var stray = good
        stray[1] = item(2, title: "Fish & Chips & more")
        var strayFixed = good
        strayFixed[1] = item(2, title: "Fish &amp; Chips &amp; more")
        list.append(Case(name: "stray &", damaged: Array(document(stray).utf8), repaired: document(strayFixed), damagedItem: nil))
        var undefined = good
        undefined[1] = item(2, title: "Caf&eacutx; &bogus; menu")
        list.append(Case(name: "undefined entity", damaged: Array(document(undefined).utf8), repaired: document(good), damagedItem: 2))
        var invalid = Array(document(good).utf8)
        let marker = Array("part 2".utf8)
        let at = (0...(invalid.count - marker.count)).first { Array(invalid[$0..<($0 + marker.count)]) == marker }!
        invalid.insert(0xFF, at: at)
        list.append(Case(name: "invalid byte", damaged: invalid, repaired: document(good), damagedItem: 2))
        var unclosed = good
        unclosed[1] = item(2, title: "Bad <b>bold &amp; broken")
        list.append(Case(name: "unclosed tag in one item", damaged: Array(document(unclosed).utf8),
                         repaired: document(good), damagedItem: 2))
        // Faults no byte repair fixes: libxml2's recovery parser still runs (see recoveryPathStillExact).
        var unquoted = good
        unquoted[1] = item(2).replacingOccurrences(of: "isPermaLink=\"false\"", with: "isPermaLink=false")
        list.append(Case(name: "unquoted attribute in one item", damaged: Array(document(unquoted).utf8),
                         repaired: document(good), damagedItem: 2))
        var duplicate = good
        duplicate[1] = item(2).replacingOccurrences(of: "length=\"1\"", with: "length=\"1\" length=\"2\"")
        list.append(Case(name: "duplicate attribute in one item", damaged: Array(document(duplicate).utf8),
                         repaired: document(good), damagedItem: 2))
        return list
    }

    /// Fields of the undamaged items that equal the twin's: (right, total).
    static func score(_ c: Case) -> (right: Int, total: Int, differences: [String]) {
        let twin: FeedDocument
        do { twin = try FeedParser.parse(Array(c.repaired.utf8), baseURL: "https://news.example.com/feed") } catch {
            return (0, 1, ["twin does not parse: \(error)"])
        }
        let damaged = try? FeedParser.parse(c.damaged, baseURL: "https://news.example.com/feed")
        var right = 0, total = 0
        var differences: [String] = []
        for expected in twin.items {
            guard let guid = expected.guid, !(c.damagedItem.map { guid.hasSuffix(":\($0)") } ?? false) else { continue }
            let got = damaged?.items.first { $0.guid == guid }
            let fields: [(String, String?, String?)] = [
                ("title", expected.title, got?.title), ("url", expected.url, got?.url), ("guid", expected.guid, got?.guid),
                ("publishedAt", expected.publishedAt?.description, got?.publishedAt?.description),
                ("author", expected.author, got?.author), ("summary", expected.summary, got?.summary),
                ("content", expected.content, got?.content), ("thumbnailURL", expected.thumbnailURL, got?.thumbnailURL),
                ("mediaType", expected.mediaType, got?.mediaType), ("mediaURL", expected.mediaURL, got?.mediaURL),
                ("mediaMimeType", expected.mediaMimeType, got?.mediaMimeType),
            ]
            for (name, want, have) in fields {
                total += 1
                if want == have { right += 1 } else { differences.append("\(guid) \(name): \(want ?? "nil") != \(have ?? "nil")") }
            }
            if got != nil, got != expected { differences.append("\(guid): entries differ") }
        }
        if damaged?.title != twin.title {
            differences.append("channel title: \(twin.title ?? "nil") != \(damaged?.title ?? "nil")")
        }
        return (right, total, differences)
    }

    @Test(arguments: cases.map(\.name))
    func undamagedItemsMatchTheRepairedTwin(_ name: String) throws {
        let c = try #require(Self.cases.first { $0.name == name })
        let s = Self.score(c)
        print("issue10-count class=1 case=\"\(name)\" right=\(s.right)/\(s.total)")
        #expect(s.total >= 22, "at least two undamaged items compared")
        #expect(s.differences.isEmpty, "\(s.differences)")
    }

    /// Junk before the document is stripped, so the document parses strictly (not "recovered").
    @Test func junkPrefixParsesStrictly() throws {
        for c in Self.cases.prefix(4) {
            let doc = try FeedParser.parse(c.damaged, baseURL: "https://news.example.com/feed")
            #expect(!doc.recovered, "\(c.name)")
        }
    }

    /// These two reach libxml2's recovery parser (no repair makes them well-formed), where named
    /// references after the first error used to vanish.
    @Test func recoveryPathStillExact() throws {
        for c in Self.cases.suffix(2) {
            let doc = try FeedParser.parse(c.damaged, baseURL: "https://news.example.com/feed")
            #expect(doc.recovered, "\(c.name)")
            #expect(doc.items.last?.title == "Red, Whine, & Blue \"4\" <3 > all", "\(c.name)")
        }
    }

    /// The text that recovery used to drop after the first error, read literally.
    @Test func entitiesAfterTheFirstErrorSurvive() throws {
        let c = try #require(Self.cases.first { $0.name == "stray &" })
        let doc = try FeedParser.parse(c.damaged, baseURL: "https://news.example.com/feed")
        let last = try #require(doc.items.last)
        #expect(last.title == "Red, Whine, & Blue \"4\" <3 > all")
        #expect(last.url == "https://news.example.com/story?id=4&ref=rss")
        #expect(last.summary == "Well \"said\" & done part 4")
        #expect(doc.items.first { $0.guid?.hasSuffix(":2") == true }?.title == "Fish & Chips & more")
    }
}
