import Testing
@testable import FeedParser
internal import CLibXML2
import PulseModel

/// libxml2 2.9 copies the whole comment read so far into each "Double hyphen within comment"
/// error, so one unterminated comment of `<!--<!--...` is quadratic inside a single libxml2 call,
/// where the budget checks between calls never run (a 1 MB one cost 6 s of CPU against a 2 s
/// budget). The error handler now stops the parser once the budget is spent: counted here by the
/// errors libxml2 still reported, which without the stop is one per `--`.
struct CommentErrorBudgetTests {
    static func feed(hyphenPairs: Int) -> [UInt8] {
        Array(("<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>t</title><!--"
            + String(repeating: "<!--", count: hyphenPairs) + "</channel></rss>").utf8)
    }

    func errorsReported(_ bytes: [UInt8], budget: CPUBudget) -> (errors: Int, stopped: Bool) {
        let log = ErrorLog(budget: budget)
        bytes.withUnsafeBufferPointer { buffer in
            guard let reader = XMLSource.streamingReader(buffer, url: nil, log: log) else { return }
            defer { xmlFreeTextReader(reader) }
            while xmlTextReaderRead(reader) == 1 {}
        }
        return (log.fatalCount, log.stoppedOverBudget)
    }

    @Test func aSpentBudgetStopsTheParseAtTheNextError() {
        let spent = errorsReported(Self.feed(hyphenPairs: 2_000), budget: CPUBudget(seconds: 0))
        #expect(spent.stopped)
        #expect(spent.errors <= 2, "libxml2 went on reporting \(spent.errors) errors after the stop")
    }

    /// The same document with budget to spare is read to its end: every pair is reported.
    @Test func withBudgetLeftEveryErrorIsReported() {
        let ample = errorsReported(Self.feed(hyphenPairs: 2_000), budget: CPUBudget(seconds: 3_600))
        #expect(!ample.stopped)
        #expect(ample.errors >= 2_000)
    }

    @Test func theFeedParserReportsTheBudget() {
        #expect(throws: FeedParseError.cpuBudgetExceeded) {
            try FeedParser.parse(Self.feed(hyphenPairs: 20_000), options: FeedParserOptions(cpuBudgetSeconds: 0))
        }
    }
}
