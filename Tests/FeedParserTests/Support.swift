import Foundation
import Testing
import FeedParser

enum Fixture {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func bytes(_ name: String) -> [UInt8] {
        let url = directory.appendingPathComponent(name)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            Issue.record("missing fixture \(name)")
            return []
        }
        return [UInt8](data)
    }

    static func parse(_ name: String, contentType: String? = nil, baseURL: String? = "https://feeds.example.com/feed.xml",
                      options: FeedParserOptions = FeedParserOptions()) throws -> FeedDocument {
        try FeedParser.parse(bytes(name), contentType: contentType, baseURL: baseURL, options: options)
    }
}

func parseString(_ xml: String, baseURL: String? = "https://feeds.example.com/feed.xml",
                 options: FeedParserOptions = FeedParserOptions()) throws -> FeedDocument {
    try FeedParser.parse(Array(xml.utf8), contentType: nil, baseURL: baseURL, options: options)
}

func utc(_ y: Int, _ mo: Int, _ d: Int, _ h: Int = 0, _ mi: Int = 0, _ s: Int = 0) -> Date {
    var c = DateComponents()
    c.year = y; c.month = mo; c.day = d; c.hour = h; c.minute = mi; c.second = s
    var cal = Calendar(identifier: .gregorian)
    cal.timeZone = TimeZone(identifier: "UTC")!
    return cal.date(from: c)!
}
