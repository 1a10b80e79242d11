import Enrichment
import FoundationEssentials
import Glibc
import HTTPFetcher

/// `--dump-article PATH|URL ... [--url URL] [--text] [--out-dir DIR] [--source-language LANG]`: no
/// database; extract the article from each page and print JSON (JSON Lines for several), or only
/// the text; with `--text --out-dir DIR` one `<basename>.txt` per input, so a corpus is processed
/// by one process. A page with no article body still prints what it declares (title, excerpt,
/// image, date) and its language, with `text` empty: the output is never `{}`.
struct DumpArticleMode {
    let inputs: [String]
    let pageURL: String?
    /// Per input (when given): a `--files-from` line's own URL, which wins over `pageURL`.
    var pageURLs: [String?] = []
    let textOnly: Bool
    let outputDirectory: String?
    /// The source language the service would fall back to; nil prints only detected languages.
    let sourceLanguage: String?
    let fetcherConfiguration: FetcherConfiguration

    struct Output: Encodable {
        let title: String?, byline: String?, excerpt: String?
        let published_at: String?, og_image: String?, language: String?
        /// "detected", or "source" when the service would store the source's language.
        let language_source: String?
        let language_confidence: Int?, text: String, html: String?
    }

    /// What one input produced, printed in input order.
    enum Outcome: Sendable {
        case line(String)
        /// `--out-dir`: written by the loop that prints, one file at a time. Two threads creating
        /// files in one folder spun on its lock (~8% of a run's CPU on ext4).
        case file(path: String, text: String)
        case failed(String)
    }

    /// Pages are independent, so they are analysed on every core at once; the output keeps the
    /// order of the inputs.
    func run() async -> Int32 {
        let fetcher = inputs.contains(where: DumpFeedMode.isURL) ? HTTPFetcher(configuration: fetcherConfiguration) : nil
        defer { fetcher?.shutdown() }
        let workers = max(1, min(ProcessInfo.processInfo.activeProcessorCount, inputs.count))
        var status = ExitStatus.success
        await withTaskGroup(of: (Int, Outcome).self) { group in
            var started = 0
            var printed = 0
            var finished: [Int: Outcome] = [:]
            func startNext() {
                let index = started
                started += 1
                let listedURL = index < pageURLs.count ? pageURLs[index] : nil
                group.addTask { (index, await process(inputs[index], pageURL: listedURL ?? pageURL, fetcher: fetcher)) }
            }
            while started < workers { startNext() }
            for await (index, outcome) in group {
                finished[index] = outcome
                while let ready = finished.removeValue(forKey: printed) {
                    printed += 1
                    switch ready {
                    case .line(let line): print(line)
                    case .file(let path, let text):
                        do {
                            try Self.writeScratch(text, to: path)
                        } catch {
                            status = ExitStatus.dataError
                            writeToStandardError("pulse-ingest: \(inputs[printed - 1]): \(error)\n")
                        }
                    case .failed(let message):
                        status = ExitStatus.dataError
                        if textOnly && outputDirectory != nil {
                            writeToStandardError("pulse-ingest: \(message)\n")
                        } else {
                            print(jsonLine(["error": message]))
                        }
                    }
                }
                if started < inputs.count { startNext() }
            }
        }
        return status
    }

    /// A plain write(2): these are scratch outputs, and Foundation's Data.write syncs each file (an
    /// fsync per page was 6% of a corpus run).
    static func writeScratch(_ text: String, to path: String) throws {
        // Replaced, not truncated: ext4 writes a file that was truncated and rewritten back to disk
        // when it is closed (auto_da_alloc), which was most of this mode's system time on a re-run;
        // a new file is written back later, as usual. Nor is a symlink at the path written through.
        // Created first, unlinked only when something is there: a fresh folder costs one call.
        let flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC
        var descriptor = open(path, flags, 0o644)
        if descriptor < 0 && errno == EEXIST {
            if unlink(path) != 0 && errno != ENOENT {
                throw DumpError("cannot replace \(path): \(String(cString: strerror(errno)))")
            }
            descriptor = open(path, flags, 0o644)
        }
        guard descriptor >= 0 else { throw DumpError("cannot write \(path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        var text = text
        if let failure = text.withUTF8({ writeAll(descriptor, UnsafeRawBufferPointer($0)) }) {
            throw DumpError("cannot write \(path): \(String(cString: strerror(failure)))")
        }
    }

    /// The file name without its folder and its last extension, as
    /// `URL(fileURLWithPath:).deletingPathExtension().lastPathComponent` gives it (trailing
    /// slashes ignored; a leading or trailing dot is not an extension), without building a URL per
    /// page. Only a readable file reaches it, so `.` and `..` (folders) never do.
    static func baseName(_ path: String) -> String {
        // On the UTF-8 bytes: "/" and "." are ASCII, never part of another scalar. Counting
        // Characters (`count > 1` at every step) walked the whole path each time (measured: about
        // 1,000 instructions a page of the extraction bench).
        let bytes = Array(path.utf8)
        var end = bytes.count
        while end > 1, bytes[end - 1] == 0x2F { end -= 1 }
        var start = 0
        if end > 1, let slash = bytes[..<end].lastIndex(of: 0x2F) { start = slash + 1 }
        if let dot = bytes[start..<end].lastIndex(of: 0x2E), dot != start, dot + 1 != end { end = dot }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    private func process(_ input: String, pageURL: String?, fetcher: HTTPFetcher?) async -> Outcome {
        var url = pageURL
        var contentType: String?
        do {
            let bytes: [UInt8]
            if DumpFeedMode.isURL(input), let fetcher {
                let response = try await fetcher.fetch(FetchRequest(url: input, kind: .page))
                bytes = response.body
                contentType = response.contentType
                url = pageURL ?? response.finalURL
            } else {
                switch readWholeFile(input) {
                case .success(let read): bytes = read
                case .failure(let failure): throw DumpError(failure.description)
                }
            }
            // `--text` prints the text alone: like the HTML, the language (CLD2, about a sixth of a
            // small page's CPU) is made only for the JSON that prints it.
            let analysis = try PageAnalysis.analyze(page: bytes, contentType: contentType, pageURL: url,
                                                    includeHTML: !textOnly)
            guard !textOnly else {
                let text = analysis.article?.text ?? ""
                guard let outputDirectory else { return .line(text) }
                let name = Self.baseName(input)
                return .file(path: outputDirectory + "/" + name + ".txt", text: text)
            }
            let language = analysis.language(configured: sourceLanguage ?? "en", detectionEnabled: true)
            let detected = language.source == .detected
            let shown = detected || sourceLanguage != nil
            return .line(jsonLine(Output(
                title: analysis.metadata.title, byline: analysis.metadata.byline,
                excerpt: analysis.metadata.excerpt, published_at: analysis.metadata.publishedTime,
                og_image: analysis.imageURL, language: shown ? language.code : nil,
                language_source: shown ? (detected ? "detected" : "source") : nil,
                language_confidence: detected ? language.detected?.percent : nil,
                text: analysis.article?.text ?? "", html: analysis.article?.html)))
        } catch {
            return .failed("\(input): \(error)")
        }
    }
}

struct DumpError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
