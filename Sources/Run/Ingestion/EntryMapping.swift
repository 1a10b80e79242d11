import FoundationEssentials
import FeedParser
import PulseModel

/// Feed entries become store candidates; entries older than the retention window are left out, so
/// items still listed after their row was pruned do not come back as "new" (the Go worker's
/// 7-day re-insert churn).
///
/// The language is not decided here: a row is inserted with its source's language and gets its
/// own once, after enrichment (`EnrichmentMerge`), from its text and its page's.
public struct EntryMapping: Sendable {
    /// Entries published before this instant are not inserted.
    public var oldestAccepted: Date

    public init(now: Date, retentionDays: Int) {
        oldestAccepted = now.addingTimeInterval(-Double(retentionDays) * 86_400)
    }

    public struct Mapped: Sendable {
        public var candidates: [ArticleCandidate] = []
        public var tooOld = 0
    }

    public func map(_ entries: [FeedEntry]) -> Mapped {
        let (candidates, tooOld) = candidates(from: entries)
        return Mapped(candidates: candidates, tooOld: tooOld)
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
