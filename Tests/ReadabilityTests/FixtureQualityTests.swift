import Foundation
import Testing
import HTMLDocument
@testable import Readability

/// Whole pages with page furniture around a known body, scored with token F1.
/// Threshold 0.9: a result at 0.9 keeps nearly all body tokens while letting through at
/// most a sentence or two of furniture; boilerplate leaking in (menus, comments, related
/// lists) or a lost paragraph pulls a page well below it.
struct FixtureQualityTests {
    static let threshold = 0.9

    @Test func fixturesExist() {
        #expect(Fixtures.pageNames.count >= 12)
    }

    @Test(arguments: Fixtures.pageNames)
    func pageScoresAboveThreshold(_ name: String) throws {
        let html = try Fixtures.text("pages/\(name).html")
        let expected = try Fixtures.text("pages/\(name).expected.txt")
        let article = try #require(try extract(html, url: "https://news.example.com/\(name)"))
        let score = TokenF1.score(extracted: article.text, expected: expected)
        let faithful = try extract(html, url: "https://news.example.com/\(name)", options: .init(enhancedCleaning: false))
        let faithfulScore = TokenF1.score(extracted: faithful?.text ?? "", expected: expected)
        print("F1 \(name): enhanced \(score) | faithful port \(faithfulScore)")
        if let dir = ProcessInfo.processInfo.environment["READABILITY_DUMP"] {
            try article.text.write(toFile: "\(dir)/\(name).txt", atomically: true, encoding: .utf8)
        }
        #expect(score.f1 >= Self.threshold, "\(name): \(score)")
    }
}
