import FoundationEssentials
import FeedParser
import LanguageTagger
import PulseModel

/// Feed entries become store candidates; entries older than the retention window are left out, so
/// items still listed after their row was pruned do not come back as "new" (the Go worker's
/// 7-day re-insert churn).
///
/// Each entry's language is detected from its own title, summary and feed body (never hinted with
/// the source's language); when detection is off for the source, abstains or is unreliable, the
/// source's configured language stays.
public struct EntryMapping: Sendable {
    /// Entries published before this instant are not inserted.
    public var oldestAccepted: Date
    public var configuredLanguage: String
    public var detectLanguage: Bool

    public init(now: Date, retentionDays: Int, configuredLanguage: String = "en", detectLanguage: Bool = false) {
        oldestAccepted = now.addingTimeInterval(-Double(retentionDays) * 86_400)
        self.configuredLanguage = configuredLanguage
        self.detectLanguage = detectLanguage
    }

    public struct Mapped: Sendable {
        public var candidates: [ArticleCandidate] = []
        public var tooOld = 0
        /// Detected reliably and different from the configured language.
        public var languageDisagreements = 0
    }

    public func map(_ entries: [FeedEntry]) -> Mapped {
        var mapped = Mapped()
        let (candidates, tooOld) = candidates(from: entries)
        mapped.tooOld = tooOld
        mapped.candidates = candidates.map { candidate in
            var candidate = candidate
            guard detectLanguage else { return candidate }
            let decision = LanguageTagger.decide(title: candidate.title, summary: candidate.summary,
                                                 body: candidate.content, configured: configuredLanguage,
                                                 detectionEnabled: true)
            if decision.source == .detected { candidate.language = decision.code }
            if decision.disagrees { mapped.languageDisagreements += 1 }
            return candidate
        }
        return mapped
    }

    public func candidates(from entries: [FeedEntry]) -> (candidates: [ArticleCandidate], tooOld: Int) {
        var candidates: [ArticleCandidate] = []
        candidates.reserveCapacity(entries.count)
        var tooOld = 0
        for entry in entries {
            if let date = entry.effectiveDate, date < oldestAccepted {
                tooOld += 1
                continue
            }
            candidates.append(ArticleCandidate(
                title: entry.title, link: entry.url, summary: entry.summary, content: entry.content,
                author: entry.author, thumbnailURL: entry.thumbnailURL, publishedAt: entry.publishedAt,
                updatedAt: entry.updatedAt, mediaType: entry.mediaType, mediaURL: entry.mediaURL,
                mediaDurationSeconds: entry.mediaDurationSeconds, mediaMimeType: entry.mediaMimeType))
        }
        return (candidates, tooOld)
    }
}
