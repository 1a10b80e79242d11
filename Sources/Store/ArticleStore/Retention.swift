import FoundationEssentials
import Postgres
import PulseModel

/// What a prune changed (or, in a dry run, would change).
public struct PruneCounts: Sendable, Equatable {
    public var articlesDeleted = 0
    public var imagesCleared = 0
    public var contentCleared = 0
    public var fetchLogsDeleted = 0

    public init() {}
}

extension ArticleStore {
    /// Applies the retention windows in small batches, each its own short transaction, so a
    /// running daemon's inserts never wait long: rows another session holds are skipped (SKIP
    /// LOCKED) and picked up by the next run. Articles go first, so no row is updated just before
    /// it is deleted. `dryRun` only counts.
    public func prune(_ windows: RetentionWindows, now: Date = Date(), batchSize: Int = 2_000,
                      dryRun: Bool = false) async throws -> PruneCounts {
        func cutoff(_ days: Int) -> Date { now.addingTimeInterval(-Double(days) * 86_400) }
        let steps: [(label: String, count: String, change: String, cutoff: Date, keyPath: WritableKeyPath<PruneCounts, Int>)] = [
            ("prune articles",
             "SELECT count(*) FROM public.articles WHERE created_at < $1::timestamptz AND $2::timestamptz IS NOT NULL",
             """
             DELETE FROM public.articles WHERE id IN (
                 SELECT id FROM public.articles WHERE created_at < $1::timestamptz
                 LIMIT $2 FOR UPDATE SKIP LOCKED)
             """, cutoff(windows.articlesDays), \.articlesDeleted),
            ("prune image urls",
             """
             SELECT count(*) FROM public.articles WHERE created_at < $1::timestamptz
               AND created_at >= $2::timestamptz AND (image_url IS NOT NULL OR thumbnail_url IS NOT NULL)
             """,
             """
             UPDATE public.articles SET image_url = NULL, thumbnail_url = NULL WHERE id IN (
                 SELECT id FROM public.articles WHERE created_at < $1::timestamptz
                   AND (image_url IS NOT NULL OR thumbnail_url IS NOT NULL)
                 LIMIT $2 FOR UPDATE SKIP LOCKED)
             """, cutoff(windows.imageDays), \.imagesCleared),
            ("prune content",
             """
             SELECT count(*) FROM public.articles WHERE created_at < $1::timestamptz
               AND created_at >= $2::timestamptz AND content IS NOT NULL
             """,
             """
             UPDATE public.articles SET content = NULL WHERE id IN (
                 SELECT id FROM public.articles WHERE created_at < $1::timestamptz AND content IS NOT NULL
                 LIMIT $2 FOR UPDATE SKIP LOCKED)
             """, cutoff(windows.contentDays), \.contentCleared),
            ("prune fetch logs",
             "SELECT count(*) FROM public.fetch_logs WHERE started_at < $1::timestamptz AND $2::timestamptz IS NOT NULL",
             """
             DELETE FROM public.fetch_logs WHERE id IN (
                 SELECT id FROM public.fetch_logs WHERE started_at < $1::timestamptz
                 LIMIT $2 FOR UPDATE SKIP LOCKED)
             """, cutoff(windows.fetchLogsDays), \.fetchLogsDeleted),
        ]
        var counts = PruneCounts()
        for step in steps {
            if dryRun {
                // Rows the article step would delete are not counted again by the later steps.
                let (sql, stepCutoff, label) = (step.count, step.cutoff, step.label)
                let articlesCutoff = cutoff(windows.articlesDays)
                counts[keyPath: step.keyPath] = try await connection.withReconnect(label: label) { db in
                    try db.query(sql, [stepCutoff, articlesCutoff], label: label).rows.first?.int("count") ?? 0
                }
                continue
            }
            while true {
                let changed = try await batch(sql: step.change, cutoff: step.cutoff, batchSize: batchSize, label: step.label)
                counts[keyPath: step.keyPath] += changed
                if changed < batchSize { break }
            }
        }
        return counts
    }

    /// One batch; a lock timeout (a long transaction elsewhere) is retried after a pause.
    private func batch(sql: String, cutoff: Date, batchSize: Int, label: String) async throws -> Int {
        var attempt = 0
        while true {
            do {
                return try await connection.withReconnect(label: label) { db in
                    try db.query(sql, [cutoff, batchSize], label: label).affectedRows
                }
            } catch let error as PostgresError where error.sqlState == "55P03" && attempt < 5 {
                attempt += 1
                try await Task.sleep(for: .milliseconds(200 * attempt))
            }
        }
    }
}
