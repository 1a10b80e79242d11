import FoundationEssentials
import PulseModel

/// What happened to one source in a pass.
public struct SourceOutcome: Sendable, Equatable {
    public enum Result: Sendable, Equatable {
        /// Fetched and parsed; rows were written (possibly none new).
        case updated
        /// 304: nothing changed since the stored validators.
        case notModified
        /// Fetch or parse failed; the message is one line for operators.
        case failed(String)
    }

    public var slug: String
    public var result: Result
    /// Items in the document (after the parser's own drops).
    public var itemsSeen = 0
    public var inserted = 0
    public var duplicates = 0
    /// Dropped by the parser (no title, unsafe link) or refused by the store's rules.
    public var dropped = 0
    /// Published before the retention window.
    public var tooOld = 0
    /// New rows enrichment added an image, a body or a language to.
    public var enriched = 0
    /// Per-article enrichment times (page fetch and analysis).
    public var enrichDurations: [Duration] = []
    /// Items whose detected language differs from the source's configured one.
    public var languageDisagreements = 0
    /// Abandoned by a stop request before its feed arrived: not a failure of the feed.
    public var stopped = false
    public var recovered = false
    public var bytes = 0
    public var duration: Duration = .zero
    public var fetchDuration: Duration = .zero
    public var parseDuration: Duration = .zero
    /// Documents refused by the parse limits (size, shape, CPU budget), by kind: "feed", "page".
    public var parseRefusals: [String: Int] = [:]
    /// The failure was the address guard (SSRF) refusing the connection.
    public var blocked = false
    /// The failure was the database's (storing, or recording the fetch), not the feed's: it does
    /// not count against the source's circuit, and the source is tried again soon.
    public var databaseFailure = false

    public init(slug: String, result: Result) {
        self.slug = slug
        self.result = result
    }

    public var failed: Bool { if case .failed = result { true } else { false } }

    /// One line per source for `--once`.
    public var line: String {
        let seconds = DecimalText.fixed(duration.seconds, places: 2) + "s"
        switch result {
        case .failed(let message):
            return "FAIL  \(slug): \(message) (\(seconds))"
        case .notModified:
            return "304   \(slug): not modified (\(seconds))"
        case .updated:
            var text = "OK    \(slug): \(itemsSeen) items, \(inserted) new, \(duplicates) known"
            if dropped > 0 { text += ", \(dropped) dropped" }
            if tooOld > 0 { text += ", \(tooOld) older than retention" }
            if enriched > 0 { text += ", \(enriched) enriched" }
            if languageDisagreements > 0 { text += ", \(languageDisagreements) in another language" }
            if recovered { text += ", recovered from malformed XML" }
            return text + " (\(seconds))"
        }
    }
}

/// The totals of one pass.
public struct PassSummary: Sendable, Equatable {
    public var outcomes: [SourceOutcome] = []
    /// Wall time of the pass, for the rate in `line` (nil: not measured).
    public var duration: Duration?
    public var interrupted = false

    public init() {}

    public var failedCount: Int { outcomes.filter(\.failed).count }
    public var inserted: Int { outcomes.reduce(0) { $0 + $1.inserted } }
    public var itemsSeen: Int { outcomes.reduce(0) { $0 + $1.itemsSeen } }

    public var databaseFailedCount: Int { outcomes.filter(\.databaseFailure).count }

    /// Said when every source of a pass failed: then the cause is rarely the feeds. Database
    /// failures are named as such (with the first one's message), never as the network's.
    public var allFailedNotice: String? {
        guard !outcomes.isEmpty, failedCount == outcomes.count else { return nil }
        let database = databaseFailedCount
        if database == outcomes.count {
            let first = outcomes.lazy.compactMap { if case .failed(let message) = $0.result { message } else { nil } }.first
            return "all \(outcomes.count) sources failed on the database" + (first.map { ": \($0)" } ?? "")
        }
        guard outcomes.count > 1 else { return nil }
        if database == 0 { return "all \(outcomes.count) sources failed: is the network reachable?" }
        return "all \(outcomes.count) sources failed: \(database) on the database, \(outcomes.count - database) fetching"
    }

    /// True when the pass tried to store and every store failed on the database (sources whose
    /// fetch failed tried none); nil when no source got as far as storing.
    public var everyStoreFailed: Bool? {
        let attempted = outcomes.filter { !$0.failed || $0.databaseFailure }
        if attempted.isEmpty { return nil }
        return attempted.allSatisfy(\.databaseFailure)
    }

    public var line: String {
        let notModified = outcomes.filter { $0.result == .notModified }.count
        var text = "total: \(outcomes.count) sources, \(failedCount) failed, \(notModified) not modified, "
            + "\(itemsSeen) items, \(inserted) new"
        let enriched = outcomes.reduce(0) { $0 + $1.enriched }
        if enriched > 0 { text += ", \(enriched) enriched" }
        // One number per pass instead of a log line per source (they were most of the demo's log).
        let disagreements = outcomes.reduce(0) { $0 + $1.languageDisagreements }
        if disagreements > 0 { text += ", \(disagreements) in another language" }
        if let seconds = duration?.seconds, seconds > 0 {
            text += ", \(DecimalText.fixed(seconds, places: 1)) s, \(DecimalText.fixed(Double(itemsSeen) / seconds, places: 0)) items/s"
        }
        return text + (interrupted ? " (interrupted)" : "")
    }
}
