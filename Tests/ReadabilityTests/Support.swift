import Foundation
import HTMLDocument
@testable import Readability

enum Fixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func text(_ name: String) throws -> String {
        try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
    }

    static var pageNames: [String] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("pages").path)) ?? []
        return files.filter { $0.hasSuffix(".html") }.map { String($0.dropLast(5)) }.sorted()
    }
}

func extract(_ html: String, url: String = "https://news.example.com/2024/05/story.html",
             options: ReadabilityOptions = .init()) throws -> ReadableArticle? {
    let document = try HTMLDocument.parse(html: html)
    return Readability.extract(from: document, url: url, options: options)
}

/// Builds a page around body markup, with enough filler to pass the 500-character threshold.
func page(title: String = "A plain test page about nothing much", head: String = "", body: String) -> String {
    "<!DOCTYPE html><html><head><title>\(title)</title>\(head)</head><body>\(body)</body></html>"
}

let filler = [
    "The committee met on Thursday morning to review the proposals, and members asked several questions about costs, timing and the effect on residents.",
    "Officials said the first phase would begin in the autumn, with work expected to last about eighteen months, although delays were possible if the weather turned.",
    "Residents who attended the meeting were broadly supportive, but some worried about noise, traffic and the loss of parking spaces near the high street.",
    "A final decision is expected next month, after a public consultation that will run for six weeks and include two open evenings at the town hall.",
]

func fillerParagraphs(_ count: Int = 4) -> String {
    (0..<count).map { "<p>\(filler[$0 % filler.count])</p>" }.joined()
}

/// Each text as a `<p>`.
func paragraphs<Texts: Sequence<String>>(_ texts: Texts) -> String {
    texts.map { "<p>\($0)</p>" }.joined()
}
