import ArticleStore
import Enrichment
import FoundationEssentials
import Logging
import PulseModel

/// What one `--backfill` run did.
public struct BackfillSummary: Sendable, Equatable {
    public var candidates = 0
    public var processed = 0
    public var imagesFilled = 0
    public var contentFilled = 0
    public var languagesFilled = 0
    /// Rows with at least one kind that failed (its attempt counter was bumped).
    public var rowsWithFailures = 0
    public var interrupted = false

    public init() {}

    public var line: String {
        "backfill: \(processed)/\(candidates) rows, \(imagesFilled) images, \(contentFilled) bodies, "
            + "\(languagesFilled) languages filled, \(rowsWithFailures) rows with failures"
            + (interrupted ? " (interrupted; re-run to continue)" : "")
    }
}

/// Fills missing images, bodies and languages on stored rows (contract section 5): candidates
/// oldest first, enriched concurrently, written in batches. Every kind that was wanted and not
/// filled counts an attempt, so a re-run never loops on the same rows (three attempts at most,
/// one per 24 hours) and re-running after an interruption simply continues.
public struct Backfiller: Sendable {
    public let store: ArticleStore
    public let enricher: Enricher
    public var windows: RetentionWindows
    public var batchSize: Int
    /// Sources whose `language_detection: off` in the config pins the configured language (the
    /// database's are read at each run).
    public var languageDetectionOff: Set<String>
    let logger: Logger

    public init(store: ArticleStore, enricher: Enricher, windows: RetentionWindows, batchSize: Int = 50,
                languageDetectionOff: Set<String> = [], logger: Logger) {
        self.store = store
        self.enricher = enricher
        self.windows = windows
        self.batchSize = max(1, batchSize)
        self.languageDetectionOff = languageDetectionOff
        self.logger = logger
    }

    public func run(kinds: Set<BackfillKind>, limit: Int, sourceSlug: String? = nil,
                    shouldStop: @Sendable () -> Bool = { false },
                    progress: (BackfillSummary) -> Void = { _ in }) async throws -> BackfillSummary {
        let candidates = try await store.backfillCandidates(kinds: kinds, windows: windows, limit: limit,
                                                           sourceSlug: sourceSlug)
        var summary = BackfillSummary()
        summary.candidates = candidates.count
        if kinds.contains(.image) {
            summary.imagesFilled += try await store.fillImagesFromThumbnails(windows: windows, sourceSlug: sourceSlug)
        }
        let thumbnails = Dictionary(candidates.compactMap { c in c.thumbnailURL.map { (c.id, $0) } },
                                    uniquingKeysWith: { first, _ in first })
        progress(summary)
        let detectionOff = languageDetectionOff.union(try await store.sourcesWithoutLanguageDetection())
        var start = 0
        while start < candidates.count {
            if shouldStop() {
                summary.interrupted = true
                break
            }
            let batch = candidates[start..<min(start + batchSize, candidates.count)]
            start += batch.count
            let targets = batch.map { candidate in
                var wants = candidate.kinds.intersection(kinds)
                if !LanguageDetectionRule.isOn(slug: candidate.sourceSlug, off: detectionOff) { wants.remove(.language) }
                return EnrichmentTarget(id: candidate.id, url: candidate.url, title: candidate.title,
                                        summary: candidate.summary, content: candidate.content,
                                        configuredLanguage: candidate.language,
                                        detectLanguage: wants.contains(.language), wants: wants)
            }
            // No per-source budget here: the run's own limit bounds it.
            let results = await enricher.enrich(targets, budget: .seconds(86_400))
            try await write(targets: targets, results: results, thumbnails: thumbnails, into: &summary)
            progress(summary)
        }
        return summary
    }

    /// `thumbnails`: the feed's thumbnail by row id, stored when the page yields no og:image.
    private func write(targets: [EnrichmentTarget], results: [EnrichmentResult], thumbnails: [String: String],
                       into summary: inout BackfillSummary) async throws {
        let merge = EnrichmentMerge(targets: targets, results: results, fallbackImages: thumbnails)
        for row in merge.rows {
            let filled = row.update.filled
            if filled.contains(.image) { summary.imagesFilled += 1 }
            if filled.contains(.content) { summary.contentFilled += 1 }
            if filled.contains(.language) { summary.languagesFilled += 1 }
            if !row.target.wants.isSubset(of: filled) { summary.rowsWithFailures += 1 }
            summary.processed += 1
        }
        try await merge.write(to: store, attempts: .wantedNotFilled)
    }
}
