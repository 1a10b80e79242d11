import FeedParser
import Foundation
import HTTPFetcher

/// `--dump-feed PATH|URL ...`: parse documents without a database and print JSON (JSON Lines when
/// several are given, in order), so a corpus is parsed by one process.
struct DumpFeedMode {
    let inputs: [String]
    let baseURL: String?
    let contentType: String?
    let options: FeedParserOptions
    let fetcherConfiguration: FetcherConfiguration

    func run() async -> Int32 {
        var status = ExitStatus.success
        var fetcher: HTTPFetcher?
        defer { fetcher?.shutdown() }
        for input in inputs {
            let bytes: [UInt8]
            var type = contentType
            var base = baseURL
            if input.hasPrefix("http://") || input.hasPrefix("https://") {
                if fetcher == nil { fetcher = HTTPFetcher(configuration: fetcherConfiguration) }
                do {
                    let response = try await fetcher!.fetch(FetchRequest(url: input, kind: .feed))
                    bytes = response.body
                    type = type ?? response.contentType
                    base = base ?? response.finalURL
                } catch {
                    print(FeedJSON.error("\(input): \(error)"))
                    status = ExitStatus.dataError
                    continue
                }
            } else {
                guard let data = FileManager.default.contents(atPath: input) else {
                    print(FeedJSON.error("\(input): cannot read the file"))
                    status = ExitStatus.dataError
                    continue
                }
                bytes = [UInt8](data)
            }
            do {
                let document = try FeedParser.parse(bytes, contentType: type, baseURL: base, options: options)
                print(FeedJSON.dump(document))
                if document.droppedByCap > 0 {
                    let note = "\(input): item cap \(options.maxItems) kept the newest; dropped \(document.droppedByCap) older items\n"
                    FileHandle.standardError.write(Data(note.utf8))
                }
            } catch {
                print(FeedJSON.error("\(input): \(error)"))
                status = ExitStatus.dataError
            }
        }
        return status
    }
}
