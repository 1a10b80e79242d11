import Enrichment
import Foundation
import HTMLDocument
import OpenGraph
import Testing

/// The lead image a page analysis reports is found while Readability reads the metadata (so the
/// JSON-LD is parsed once); it must be exactly what `OpenGraph.imageURL` finds on its own.
/// No database needed.
struct PageAnalysisImageTests {
    static let body = String(repeating: "<p>The council met on Tuesday evening to discuss the budget, and the "
        + "vote went late into the night, with several amendments debated at length by members. </p>", count: 6)

    static let pages: [(name: String, html: String, expected: String?)] = [
        ("og:image", "<html><head><meta property='og:image' content='/img/lead.jpg'></head><body><article>\(body)</article></body></html>",
         "https://news.example.com/img/lead.jpg"),
        ("twitter:image after a placeholder og:image",
         "<html><head><meta property='og:image' content='https://news.example.com/static/placeholder.png'>"
            + "<meta name='twitter:image' content='https://cdn.example.com/t.jpg'></head><body><article>\(body)</article></body></html>",
         "https://cdn.example.com/t.jpg"),
        ("JSON-LD image only",
         "<html><head><script type='application/ld+json'>{\"@type\":\"NewsArticle\",\"headline\":\"Budget\","
            + "\"image\":{\"@type\":\"ImageObject\",\"url\":\"https://cdn.example.com/ld.jpg\"}}</script></head>"
            + "<body><article>\(body)</article></body></html>",
         "https://cdn.example.com/ld.jpg"),
        ("no article, og:image", "<html><head><meta property='og:image' content='https://cdn.example.com/short.jpg'></head>"
            + "<body><p>Short.</p></body></html>",
         "https://cdn.example.com/short.jpg"),
        ("no image at all", "<html><body><article>\(body)</article></body></html>", nil),
    ]

    @Test(arguments: pages.indices)
    func analysisReportsTheImageOpenGraphFinds(_ index: Int) throws {
        let page = Self.pages[index]
        let pageURL = "https://news.example.com/2026/budget"
        let bytes = Array(page.html.utf8)
        let analysis = try PageAnalysis.analyze(page: bytes, contentType: "text/html; charset=utf-8", pageURL: pageURL)
        let alone = OpenGraph.imageURL(in: try HTMLDocument.parse(bytes), pageURL: pageURL)
        #expect(analysis.imageURL == alone, "\(page.name)")
        #expect(analysis.imageURL == page.expected, "\(page.name)")
    }

    /// The same on every labelled page of the extraction fixtures.
    @Test func everyFixturePageAgrees() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("ReadabilityTests/Fixtures/pages")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".html") }
        #expect(names.count >= 10)
        for name in names {
            let bytes = try [UInt8](Data(contentsOf: folder.appendingPathComponent(name)))
            let pageURL = "https://news.example.com/\(name)"
            let analysis = try PageAnalysis.analyze(page: bytes, contentType: nil, pageURL: pageURL)
            #expect(analysis.imageURL == OpenGraph.imageURL(in: try HTMLDocument.parse(bytes), pageURL: pageURL), "\(name)")
        }
    }
}
