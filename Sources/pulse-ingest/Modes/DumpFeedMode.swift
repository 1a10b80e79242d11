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

    static func isURL(_ input: String) -> Bool { input.hasPrefix("http://") || input.hasPrefix("https://") }

    func run() async -> Int32 {
        var status = ExitStatus.success
        var fetcher: HTTPFetcher?
        defer { fetcher?.shutdown() }
        for input in inputs {
            guard Self.isURL(input) else {
                if !dumpFile(input) { status = ExitStatus.dataError }
                continue
            }
            if fetcher == nil { fetcher = HTTPFetcher(configuration: fetcherConfiguration) }
            do {
                let response = try await fetcher!.fetch(FetchRequest(url: input, kind: .feed))
                if !dump(response.body, input: input, contentType: contentType ?? response.contentType,
                         baseURL: baseURL ?? response.finalURL) {
                    status = ExitStatus.dataError
                }
            } catch {
                print(FeedJSON.error("\(input): \(error)"))
                status = ExitStatus.dataError
            }
        }
        return status
    }

    /// Every input a file (`Invocation.isLocalDumpFeed`): synchronous throughout.
    func runFiles() -> Int32 {
        var status = ExitStatus.success
        for input in inputs where !dumpFile(input) { status = ExitStatus.dataError }
        return status
    }

    private func dumpFile(_ input: String) -> Bool {
        guard let data = FileManager.default.contents(atPath: input) else {
            print(FeedJSON.error("\(input): cannot read the file"))
            return false
        }
        return dump([UInt8](data), input: input, contentType: contentType, baseURL: baseURL)
    }

    /// Prints the document's JSON (or its error); false when it could not be parsed.
    private func dump(_ bytes: [UInt8], input: String, contentType: String?, baseURL: String?) -> Bool {
        do {
            let document = try FeedParser.parse(bytes, contentType: contentType, baseURL: baseURL, options: options)
            print(FeedJSON.dump(document))
            if document.droppedByCap > 0 {
                let note = "\(input): item cap \(options.maxItems) kept the newest; dropped \(document.droppedByCap) older items\n"
                FileHandle.standardError.write(Data(note.utf8))
            }
            return true
        } catch {
            print(FeedJSON.error("\(input): \(error)"))
            return false
        }
    }
}
