import Enrichment
import Foundation
import HTTPFetcher

/// `--dump-article PATH|URL ... [--url URL] [--text] [--out-dir DIR]`: no database; extract the
/// article from each page and print JSON (JSON Lines for several), or only the text; with
/// `--text --out-dir DIR` one `<basename>.txt` per input, so a corpus is processed by one process.
struct DumpArticleMode {
    let inputs: [String]
    let pageURL: String?
    let textOnly: Bool
    let outputDirectory: String?
    let fetcherConfiguration: FetcherConfiguration

    struct Output: Encodable {
        let title: String?, byline: String?, excerpt: String?
        let published_at: String?, og_image: String?, language: String?
        let language_confidence: Int?, text: String?, html: String?
    }

    func run() async -> Int32 {
        var status = ExitStatus.success
        var fetcher: HTTPFetcher?
        defer { fetcher?.shutdown() }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        for input in inputs {
            var bytes: [UInt8] = []
            var contentType: String?
            var url = pageURL
            do {
                if input.hasPrefix("http://") || input.hasPrefix("https://") {
                    if fetcher == nil { fetcher = HTTPFetcher(configuration: fetcherConfiguration) }
                    let response = try await fetcher!.fetch(FetchRequest(url: input, kind: .page))
                    bytes = response.body
                    contentType = response.contentType
                    url = pageURL ?? response.finalURL
                } else {
                    guard let data = FileManager.default.contents(atPath: input) else {
                        throw DumpError("cannot read the file")
                    }
                    bytes = [UInt8](data)
                }
                let analysis = try PageAnalysis.analyze(page: bytes, contentType: contentType, pageURL: url,
                                                        title: nil, summary: nil, configuredLanguage: "en",
                                                        detectLanguage: true)
                let detected = analysis.language?.source == .detected
                if textOnly {
                    let text = analysis.article?.text ?? ""
                    if let outputDirectory {
                        let name = URL(fileURLWithPath: input).deletingPathExtension().lastPathComponent
                        try text.write(toFile: outputDirectory + "/" + name + ".txt", atomically: true, encoding: .utf8)
                    } else {
                        print(text)
                    }
                } else {
                    let output = Output(
                        title: analysis.article?.title, byline: analysis.article?.byline,
                        excerpt: analysis.article?.excerpt, published_at: analysis.article?.publishedTime,
                        og_image: analysis.imageURL, language: detected ? analysis.language?.code : nil,
                        language_confidence: detected ? analysis.language?.detected?.percent : nil,
                        text: analysis.article?.text, html: analysis.article?.html)
                    print(String(decoding: try encoder.encode(output), as: UTF8.self))
                }
            } catch {
                status = ExitStatus.dataError
                if textOnly && outputDirectory != nil {
                    FileHandle.standardError.write(Data("pulse-ingest: \(input): \(error)\n".utf8))
                } else {
                    let message = String(decoding: (try? encoder.encode(["error": "\(input): \(error)"])) ?? Data(), as: UTF8.self)
                    print(message)
                }
            }
        }
        return status
    }
}

struct DumpError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
