import Foundation
import Testing
import FeedParser

@Suite("Dates")
struct DateTests {
    static let rfc822: [(String, Date)] = [
        ("Tue, 10 Jun 2003 04:00:00 GMT", utc(2003, 6, 10, 4)),
        ("Tue, 10 Jun 2003 04:00:00 +0000", utc(2003, 6, 10, 4)),
        ("10 Jun 2003 04:00:00 GMT", utc(2003, 6, 10, 4)),                // no weekday
        ("Tue, 10 Jun 03 04:00:00 GMT", utc(2003, 6, 10, 4)),             // 2-digit year
        ("Tue, 10 Jun 99 04:00:00 GMT", utc(1999, 6, 10, 4)),
        ("Sun, 1 Jun 2003 04:00:00 GMT", utc(2003, 6, 1, 4)),              // single-digit day
        ("Tue, 10 Jun 2003 04:00:00 GMT+2", utc(2003, 6, 10, 2)),
        ("Tue, 10 Jun 2003 04:00:00 UT", utc(2003, 6, 10, 4)),
        ("Tue, 10 jun 2003 04:00:00 gmt", utc(2003, 6, 10, 4)),           // lowercase
        ("Tue,  10   Jun  2003   04:00:00   GMT ", utc(2003, 6, 10, 4)),  // extra spaces
        ("Wed, 10 Sept 2003 04:00:00 GMT", utc(2003, 9, 10, 4)),
        ("Tuesday, 10 June 2003 04:00:00 GMT", utc(2003, 6, 10, 4)),      // full names
        ("Tue, 10 Jun 2003 04:00 GMT", utc(2003, 6, 10, 4)),              // no seconds
        ("Tue, 10 Jun 2003 04:00:00 EST", utc(2003, 6, 10, 9)),
        ("Tue, 10 Jun 2003 04:00:00 PDT", utc(2003, 6, 10, 11)),
        ("Tue, 10 Jun 2003 04:00:00 -0530", utc(2003, 6, 10, 9, 30)),
        ("Tue, 10 Jun 2003 04:00:00 +05:30", utc(2003, 6, 9, 22, 30)),
        ("Tue, 10 Jun 2003 04:00:00 CEST", utc(2003, 6, 10, 2)),
        ("Tue, 10 Jun 2003 04:00:00 Z", utc(2003, 6, 10, 4)),
        ("Tue, 10 Jun 2003 04:00:00", utc(2003, 6, 10, 4)),               // no zone: UTC
        ("Tue, 10 Jun 2003 04:00:00 +0000 (UTC)", utc(2003, 6, 10, 4)),
        ("Jun 10 2003 04:00:00 GMT", utc(2003, 6, 10, 4)),
    ]

    static let iso: [(String, Date)] = [
        ("2024-03-05T10:20:30Z", utc(2024, 3, 5, 10, 20, 30)),
        ("2024-03-05T10:20:30.123456Z", utc(2024, 3, 5, 10, 20, 30)),
        ("2024-03-05T10:20:30+01:00", utc(2024, 3, 5, 9, 20, 30)),
        ("2024-03-05T10:20:30-0700", utc(2024, 3, 5, 17, 20, 30)),
        ("2024-03-05T10:20Z", utc(2024, 3, 5, 10, 20)),
        ("2024-03-05", utc(2024, 3, 5)),
        ("2024-03-05 10:20:30", utc(2024, 3, 5, 10, 20, 30)),
        ("2024-03-05t10:20:30z", utc(2024, 3, 5, 10, 20, 30)),
        ("2024-02-29T00:00:00Z", utc(2024, 2, 29)),
    ]

    @Test(arguments: rfc822) func rfc822Forms(_ input: String, _ expected: Date) {
        #expect(FeedDate.parse(input) == expected, "\(input)")
    }

    @Test(arguments: iso) func isoForms(_ input: String, _ expected: Date) {
        #expect(FeedDate.parse(input) == expected, "\(input)")
    }

    @Test(arguments: ["", "yesterday", "2023-02-29", "Tue, 32 Jun 2003 04:00:00 GMT", "Tue, 10 Foo 2003 04:00:00 GMT",
                      "2024-13-01", "10 Jun 2003 25:00:00 GMT", "Tue, 10 Jun 2003 04:00:00 XYZ", "12345"])
    func unparseableIsNil(_ input: String) {
        #expect(FeedDate.parse(input) == nil, "\(input)")
    }

    @Test func unparseableItemDateLeavesNil() throws {
        let doc = try parseString("""
        <rss version="2.0"><channel><title>t</title><item><title>a</title><link>https://x.example/a</link>
        <pubDate>sometime last week</pubDate></item></channel></rss>
        """)
        #expect(doc.items.count == 1)
        #expect(doc.items[0].publishedAt == nil)
        #expect(doc.items[0].effectiveDate == nil)
    }
}
