import ArticleStore
import Enrichment
import LanguageTagger
import PulseModel

/// The one merge of enriched pages into stored rows, for the ingest pass and `--backfill` alike:
/// results -> each row's language -> the fields to write -> one UPDATE -> attempts counted.
/// Rows are inserted before their pages are read, not after: a row is readable as soon as its feed
/// is stored, and a page that is slow, fails or is cut short by a stop only adds less to it.
struct EnrichmentMerge {
    struct Row {
        var target: EnrichmentTarget
        var update: EnrichmentUpdate
        /// What the page fetch tried and did not find (none when no page was fetched).
        var failed: Set<BackfillKind>
        /// The row's language decision when it detected one (written with the update).
        var detected: LanguageDecision?
    }

    /// Which misses count an attempt.
    enum Attempts {
        /// Ingest: what the page fetch failed to find; a row still showing its feed thumbnail
        /// (not in `imageless`) is not missing an image.
        case failedOnPage(imageless: Set<String>)
        /// `--backfill`: every kind a row was a candidate for and did not get, so that a re-run
        /// never loops on the same rows.
        case wantedNotFilled
    }

    let rows: [Row]

    /// Decides each row's language once (`detectLanguage`): from its own text and, where it was
    /// read, its page's. `fallbackImages`: by row id, the image stored when the page has none.
    init(targets: [EnrichmentTarget], results: [EnrichmentResult], fallbackImages: [String: String] = [:]) {
        let byID = Dictionary(results.map { ($0.update.id, $0) }, uniquingKeysWith: { first, _ in first })
        rows = targets.map { target in
            let result = byID[target.id]
            var row = Row(target: target, update: result?.update ?? EnrichmentUpdate(id: target.id),
                          failed: result?.failed ?? [])
            if target.detectLanguage {
                let decision = LanguageTagger.decideRow(
                    title: target.title, summary: target.summary, body: target.content, page: result?.pageText,
                    configured: target.configuredLanguage, detectionEnabled: true)
                if decision.source == .detected {
                    row.update.language = decision.code
                    row.detected = decision
                }
            }
            if target.wants.contains(.image), row.update.imageURL == nil, let fallback = fallbackImages[target.id] {
                row.update.imageURL = fallback
            }
            return row
        }
    }

    /// Writes every row's found fields in one statement, then counts the attempts.
    func write(to store: ArticleStore, attempts: Attempts) async throws {
        try await store.applyEnrichment(rows.map(\.update).filter { !$0.filled.isEmpty })
        var misses: [BackfillKind: [String]] = [:]
        for row in rows {
            let missed = switch attempts {
            case .failedOnPage(let imageless): row.failed.filter { $0 != .image || imageless.contains(row.target.id) }
            case .wantedNotFilled: row.target.wants.subtracting(row.update.filled)
            }
            for kind in missed { misses[kind, default: []].append(row.target.id) }
        }
        for kind in BackfillKind.allCases {
            if let ids = misses[kind] { try await store.bumpBackfillAttempts(ids: ids, kind: kind) }
        }
    }
}
