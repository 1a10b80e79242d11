import Dispatch
import FeedParser
import FoundationEssentials
import Glibc
import HTTPFetcher
import Synchronization

/// `--dump-feed PATH|URL ...`: parse documents without a database and print JSON (JSON Lines when
/// several are given, in order), so a corpus is parsed by one process.
struct DumpFeedMode {
    let inputs: [String]
    let baseURL: String?
    let contentType: String?
    let options: FeedParserOptions
    let fetcherConfiguration: FetcherConfiguration

    /// An input of either dump mode that is fetched rather than read from a file.
    static func isURL(_ input: String) -> Bool { input.hasPrefix("http://") || input.hasPrefix("https://") }

    func run() async -> Int32 {
        var status = ExitStatus.success
        var fetcher: HTTPFetcher?
        defer { fetcher?.shutdown() }
        for input in inputs {
            guard Self.isURL(input) else {
                if !dumpFile(input).write() { status = ExitStatus.dataError }
                continue
            }
            if fetcher == nil { fetcher = HTTPFetcher(configuration: fetcherConfiguration) }
            do {
                let response = try await fetcher!.fetch(FetchRequest(url: input, kind: .feed))
                let outcome = dump(response.body, input: input, contentType: contentType ?? response.contentType,
                                   baseURL: baseURL ?? response.finalURL)
                if !outcome.write() { status = ExitStatus.dataError }
            } catch {
                Outcome(error: "\(input): \(error)").write()
                status = ExitStatus.dataError
            }
        }
        return status
    }

    /// Every input a file (run off the pool, `OffPool`). Several files are
    /// independent documents, so they are parsed on every core at once, on Dispatch's worker
    /// threads rather than the Swift concurrency pool (reading a file blocks); the output keeps the
    /// order of the inputs, each document printed as soon as those before it are.
    func runFiles() -> Int32 {
        guard inputs.count > 1, ProcessInfo.processInfo.activeProcessorCount > 1 else {
            var status = ExitStatus.success
            for input in inputs where !dumpFile(input).write() { status = ExitStatus.dataError }
            return status
        }
        let printer = OrderedPrinter()
        let order = Self.biggestFirst(inputs)
        DispatchQueue.concurrentPerform(iterations: order.count) { turn in
            let index = order[turn]
            printer.finished(index, dumpFile(inputs[index]))
        }
        return printer.allParsed ? ExitStatus.success : ExitStatus.dataError
    }

    /// The order files are started in: within each run of `window` inputs, the biggest first, so
    /// a big document at the end of a list does not leave one core parsing it alone (on the bench's
    /// corpus the last file of a group was 38% of the group's work). Windows keep a long list
    /// close to input order, so few finished documents wait for an earlier one to be printed.
    static func biggestFirst(_ inputs: [String], window: Int = 64) -> [Int] {
        let sizes = inputs.map { path -> Int in
            var info = stat()
            return stat(path, &info) == 0 ? Int(info.st_size) : 0
        }
        return stride(from: 0, to: inputs.count, by: window).flatMap { start in
            (start..<min(start + window, inputs.count)).sorted { sizes[$0] > sizes[$1] || (sizes[$0] == sizes[$1] && $0 < $1) }
        }
    }

    /// What one document produced: its JSON line (or error line), and a note for stderr.
    struct Outcome: Sendable {
        /// UTF-8, newline included: written out as it is.
        var line: Data
        var note: String?
        var parsed: Bool

        init(json: Data, note: String?) {
            line = json
            line.append(0x0A)
            self.note = note
            parsed = true
        }

        init(error message: String) {
            line = jsonBytes(["error": message])
            line.append(0x0A)
            parsed = false
        }

        /// Every line of this mode goes out through here, unbuffered, so lines never interleave
        /// or reorder. Returns `parsed`.
        @discardableResult
        func write() -> Bool {
            _ = line.withUnsafeBytes { writeAll(STDOUT_FILENO, $0) }
            if let note { writeToStandardError(note) }
            return parsed
        }
    }

    /// Writes outcomes in input order whatever order they finish in; at most the documents that
    /// finished ahead of a slow one wait in memory.
    final class OrderedPrinter: Sendable {
        private struct State {
            var waiting: [Int: Outcome] = [:]
            var next = 0
            var allParsed = true
        }
        private let state = Mutex(State())

        var allParsed: Bool { state.withLock { $0.allParsed } }

        func finished(_ index: Int, _ outcome: Outcome) {
            state.withLock { state in
                state.waiting[index] = outcome
                while let ready = state.waiting.removeValue(forKey: state.next) {
                    if !ready.write() { state.allParsed = false }
                    state.next += 1
                }
            }
        }
    }

    private func dumpFile(_ input: String) -> Outcome {
        switch readWholeFile(input) {
        case .success(let bytes): return dump(bytes, input: input, contentType: contentType, baseURL: baseURL)
        case .failure(let failure): return Outcome(error: "\(input): \(failure)")
        }
    }

    /// The document's JSON (or its error); `parsed` false when it could not be parsed.
    private func dump(_ bytes: [UInt8], input: String, contentType: String?, baseURL: String?) -> Outcome {
        do {
            let document = try FeedParser.parse(bytes, contentType: contentType, baseURL: baseURL, options: options)
            var note: String?
            if document.droppedByCap > 0 {
                note = "\(input): item cap \(options.maxItems) kept the newest; dropped \(document.droppedByCap) older items\n"
            }
            return Outcome(json: jsonBytes(FeedLine(document: document)), note: note)
        } catch {
            return Outcome(error: "\(input): \(error)")
        }
    }

    /// One document's line: the feed's format and whether it was recovered, its title, link and
    /// language, its items as the row would store them and the dropped ones with the reason. Every
    /// key is written, null when unknown. JSONEncoder, like the other dumps: against the hand-written
    /// escaper it replaced, `--dump-feed` takes about 1.13x the CPU on the feed bench's generated
    /// corpus (1.0x on its 16 MB feed), which `make bench-feeds` counts as parsing time; most of the
    /// difference is JSONWriter's byte-by-byte escaping loop, the key sort and its copy into Data.
    struct FeedLine: Encodable {
        struct Channel: Encodable { let title, link, language: Nullable<String> }
        struct Dropped: Encodable { let reason: String, title: Nullable<String> }

        /// An item's fields go into the keyed container as String or nil directly: a generic
        /// wrapper per field (Nullable) cost JSONEncoder a type check and a nested encoder each,
        /// most of the dump's encoding time before the text itself.
        struct Item: Encodable {
            let entry: FeedEntry
            enum CodingKeys: CodingKey {
                case title, url, guid, published_at, author, summary, content, thumbnail_url, media_type, media_url,
                     media_mime_type, media_duration
            }

            func encode(to encoder: any Encoder) throws {
                var row = encoder.container(keyedBy: CodingKeys.self)
                try row.encode(entry.title, forKey: .title)
                try row.encode(entry.url, forKey: .url)
                // The date in UTC, whole seconds: "2003-06-10T04:05:06Z".
                for (key, text) in [(CodingKeys.guid, entry.guid), (.published_at, entry.effectiveDate?.formatted(.iso8601)),
                                    (.author, entry.author), (.summary, entry.summary), (.content, entry.content),
                                    (.thumbnail_url, entry.thumbnailURL), (.media_type, entry.mediaType),
                                    (.media_url, entry.mediaURL), (.media_mime_type, entry.mediaMimeType)] {
                    if let text { try row.encode(text, forKey: key) } else { try row.encodeNil(forKey: key) }
                }
                if let seconds = entry.mediaDurationSeconds { try row.encode(seconds, forKey: .media_duration) } else { try row.encodeNil(forKey: .media_duration) }
            }
        }

        let format: String, recovered: Bool, feed: Channel, items: [Item], dropped: [Dropped]

        init(document: FeedDocument) {
            format = document.format.rawValue
            recovered = document.recovered
            feed = Channel(title: Nullable(document.title), link: Nullable(document.link), language: Nullable(document.language))
            items = document.items.map(Item.init)
            dropped = document.dropped.map { Dropped(reason: $0.reason, title: Nullable($0.title)) }
        }
    }
}
