import CanonicalURL
import FoundationEssentials
import HTMLDocument
import HTTPFetcher
import LanguageTagger
import Logging
import PulseModel
import Synchronization
import Threads

/// One row to enrich, whether just inserted or found by `--backfill`.
public struct EnrichmentTarget: Sendable, Equatable {
    public var id: String
    public var url: String
    public var title: String
    public var summary: String?
    /// The body already stored (feed content), if any.
    public var content: String?
    public var configuredLanguage: String
    /// The row's language is decided (its source's detection is on; for `--backfill`, the row
    /// is a candidate for it).
    public var detectLanguage: Bool
    public var wants: Set<BackfillKind>

    public init(id: String, url: String, title: String, summary: String?, content: String?,
                configuredLanguage: String, detectLanguage: Bool, wants: Set<BackfillKind>) {
        self.id = id
        self.url = url
        self.title = title
        self.summary = summary
        self.content = content
        self.configuredLanguage = configuredLanguage
        self.detectLanguage = detectLanguage
        self.wants = wants
    }
}

/// What enrichment did for one row: the fields to write and the kinds that failed (their
/// attempt counters are bumped so backfill retries later, at most three times).
public struct EnrichmentResult: Sendable, Equatable {
    public var update: EnrichmentUpdate
    public var failed: Set<BackfillKind>
    public var error: String?
    /// What the page offers for the row's language; nil when no page was read.
    public var pageText: PageLanguageText?
    /// The page was refused by the parse limits (size, shape or budget): counted in metrics.
    public var refused = false
    /// Wall time of this article's page fetch and analysis (the enrich-duration histogram).
    public var duration: Duration = .zero
}

public struct EnrichmentSettings: Sendable {
    /// Article pages fetched at once (the fetcher's per-host politeness still applies; below 1 counts as 1).
    public var concurrency = 4
    /// A source's enrichment stops starting new pages after this long; rows keep what they have.
    public var perSourceBudget: Duration = .seconds(60)
    /// Feed content counts as the full article when at least this much longer than the summary.
    public var fullContentMargin = 200
    public var pageBodyLimit: Int?
    public var maxContentLength = FieldLimits.content

    public init() {}
}

/// Fetches each article's page once (through the shared fetcher: SSRF guard, caps, per-host
/// politeness) and derives og:image, the readable body and the language from it.
public struct Enricher: Sendable {
    public let fetcher: HTTPFetcher
    public var settings: EnrichmentSettings
    let logger: Logger

    public init(fetcher: HTTPFetcher, settings: EnrichmentSettings = .init(), logger: Logger) {
        self.fetcher = fetcher
        self.settings = settings
        self.logger = logger
    }

    /// Feed content is kept when it is a full article; otherwise the page's body replaces it.
    public func needsExtraction(summary: String?, content: String?) -> Bool {
        guard let content, !content.isEmpty else { return true }
        return content.count < (summary?.count ?? 0) + settings.fullContentMargin
    }

    /// Enriches `targets` with bounded concurrency until `budget` runs out; targets not started
    /// by then come back untouched (and unfailed: nothing was tried).
    public func enrich(_ targets: [EnrichmentTarget], budget: Duration? = nil) async -> [EnrichmentResult] {
        let deadline = ContinuousClock.now + (budget ?? settings.perSourceBudget)
        return await withTaskGroup(of: EnrichmentResult?.self) { group in
            var pending = targets[...]
            var running = 0
            var results: [EnrichmentResult] = []
            while true {
                while running < max(1, settings.concurrency), ContinuousClock.now < deadline, let target = pending.popFirst() {
                    running += 1
                    group.addTask { await enrichOne(target) }
                }
                if running == 0 { break }
                if let result = await group.next() {
                    running -= 1
                    if let result { results.append(result) }
                }
            }
            return results
        }
    }

    func enrichOne(_ target: EnrichmentTarget) async -> EnrichmentResult? {
        var result = EnrichmentResult(update: EnrichmentUpdate(id: target.id), failed: [])
        let started = ContinuousClock.now
        let wantsBody = target.wants.contains(.content) && needsExtraction(summary: target.summary, content: target.content)
        guard target.wants.contains(.image) || wantsBody || target.wants.contains(.language) else { return nil }
        do {
            let response = try await fetcher.fetch(FetchRequest(url: target.url, kind: .page,
                                                                 maxBodyBytes: settings.pageBodyLimit))
            let maxTextLength = settings.maxContentLength
            let analysis = try await OffPool.run(gate: OffPool.pageSlots) {
                try PageAnalysis.analyze(
                    page: response.body, contentType: response.contentType, pageURL: response.finalURL,
                    maxTextLength: maxTextLength)
            }
            if target.wants.contains(.image) {
                result.update.imageURL = analysis.imageURL.flatMap(StoredURL.check)
                if result.update.imageURL == nil { result.failed.insert(.image) }
            }
            if wantsBody {
                result.update.content = analysis.article.flatMap {
                    StoredText.multiLine($0.text, limit: settings.maxContentLength)
                }
                if result.update.content == nil { result.failed.insert(.content) }
            }
            if target.wants.contains(.language) { result.pageText = analysis.languageText }
        } catch {
            result.error = "\(error)"
            result.refused = (error as? HTMLDocumentError)?.isRefusal ?? false
            // The language is not the page's to fail: `EnrichmentMerge` decides it from the row's text.
            result.failed = target.wants.subtracting([.language])
        }
        result.duration = ContinuousClock.now - started
        return result
    }
}
