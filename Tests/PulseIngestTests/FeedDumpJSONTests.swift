import FeedParser
import Foundation
@testable import pulse_ingest
import Testing

/// `--dump-feed`'s line for one document (JSONEncoder, sorted keys, every key present and null
/// when unknown), and error lines that carry any text on one line.
@Suite struct FeedDumpJSONTests {
    static func line(_ xml: String) throws -> String {
        jsonLine(DumpFeedMode.FeedLine(document: try FeedParser.parse(Array(xml.utf8))))
    }

    @Test func everyKeyIsWrittenAndNullWhenUnknown() throws {
        let json = try Self.line("""
            <rss version="0.92"><channel><title>Radio 0.92</title><link>http://radio.example.com/</link>
            <item><title>Show one</title><link>http://radio.example.com/show1</link>
            <description>Episode &lt;i&gt;one&lt;/i&gt;</description>
            <enclosure url="http://radio.example.com/show1.mp3" length="12216320" type="audio/mpeg"/></item>
            </channel></rss>
            """)
        #expect(json == #"{"dropped":[],"feed":{"language":null,"link":"http://radio.example.com/","title":"Radio 0.92"},"#
            + #""format":"rss092","items":[{"author":null,"content":null,"guid":null,"media_duration":null,"#
            + #""media_mime_type":"audio/mpeg","media_type":"podcast","media_url":"http://radio.example.com/show1.mp3","#
            + #""published_at":null,"summary":"Episode one","thumbnail_url":null,"title":"Show one","#
            + #""url":"http://radio.example.com/show1"}],"recovered":false}"#)
    }

    /// Dates in UTC to the second, before 1970 too; a dropped item keeps its reason and title.
    @Test func datesAndDrops() throws {
        let json = try Self.line("""
            <rss version="2.0"><channel><title>d</title>
            <item><title>a</title><link>https://d.example/a</link><pubDate>Tue, 10 Jun 2003 06:05:06 +0200</pubDate></item>
            <item><title>b</title><link>https://d.example/b</link><pubDate>Wed, 31 Dec 1969 23:59:59 GMT</pubDate></item>
            <item><title>no link</title></item>
            </channel></rss>
            """)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let items = try #require(object["items"] as? [[String: Any]])
        #expect(items.map { $0["published_at"] as? String } == ["2003-06-10T04:05:06Z", "1969-12-31T23:59:59Z"])
        #expect(object["dropped"] as? [[String: String]] == [["reason": "missing link", "title": "no link"]])
    }

    /// Quotes, backslashes and controls are escaped, so any text stays on its line and comes back
    /// whole from a JSON parser.
    @Test func errorLinesRoundTrip() throws {
        let fixed = "q\"b\\n\nr\rt\tc\u{1}\u{1F}d\u{7F}ls\u{2028}ps\u{2029}dash\u{2014}quote\u{201C}"
        #expect(jsonLine(["error": fixed])
                == "{\"error\":\"q\\\"b\\\\n\\nr\\rt\\tc\\u0001\\u001fd\u{7F}ls\u{2028}ps\u{2029}dash\u{2014}quote\u{201C}\"}")
        let alphabet: [Character] = ["a", " ", "\"", "\\", "/", "\n", "\r", "\t", "\u{0}", "\u{8}", "\u{C}", "\u{1B}", "\u{7F}",
                                     "\u{80}", "\u{2028}", "\u{2029}", "\u{2014}", "\u{E000}", "é", "東"]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let text = String((0..<Int.random(in: 0...64, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! })
            let line = jsonLine(["error": text])
            #expect(!line.utf8.contains { $0 < 0x20 })
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String]
            #expect(object?["error"] == text, "\(Array(text.unicodeScalars))")
        }
    }
}
