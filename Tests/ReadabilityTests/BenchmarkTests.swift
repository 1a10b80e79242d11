import Foundation
import Testing
import HTMLDocument
@testable import Readability

/// Throughput over the fixture pages; runs only with READABILITY_BENCH=1 (ideally in
/// release: `swift test -c release`). Prints pages/s; asserts only that it extracted.
struct BenchmarkTests {
    @Test(.enabled(if: ProcessInfo.processInfo.environment["READABILITY_BENCH"] != nil))
    func fixturePagesPerSecond() throws {
        let pages = try Fixtures.pageNames.map { try Fixtures.text("pages/\($0).html") }
        var count = 0
        var extracted = 0
        let start = Date()
        while Date().timeIntervalSince(start) < 3 {
            for html in pages {
                let document = try HTMLDocument.parse(html: html)
                if Readability.extract(from: document, url: "https://news.example.com/x") != nil { extracted += 1 }
                count += 1
            }
        }
        let elapsed = Date().timeIntervalSince(start)
        print("readability pages/s: \(Double(count) / elapsed)")
        #expect(extracted == count)
    }
}
