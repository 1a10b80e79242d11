import FoundationEssentials
import Postgres
import PulseModel

extension BackfillKind {
    /// The columns that say "missing" and count attempts.
    var missing: String {
        switch self {
        case .image: "a.image_url IS NULL"
        case .content: "a.content IS NULL"
        case .language: "NOT a.language_detected"
        }
    }

    var attemptsColumn: String { "\(rawValue)_backfill_attempts" }
    var lastAttemptColumn: String { "\(rawValue)_backfill_last_attempt_at" }

    func window(_ windows: RetentionWindows) -> Int {
        switch self {
        case .image: windows.imageDays
        case .content: windows.contentDays
        case .language: windows.articlesDays
        }
    }
}

/// A stored article that misses something.
public struct BackfillCandidate: Sendable, Equatable {
    public var id: String
    public var url: String
    public var title: String
    public var summary: String?
    public var content: String?
    public var language: String
    public var sourceSlug: String?
    /// The feed's thumbnail: `image_url` when the page has no og:image (the Go worker's order).
    public var thumbnailURL: String?
    /// The kinds this row is a candidate for.
    public var kinds: Set<BackfillKind>
}

extension ArticleStore {
    /// Backfill candidates (contract section 5): younger than the matching prune window, field
    /// missing, fewer than 3 attempts, no attempt in the last 24 hours; oldest first.
    public func backfillCandidates(kinds: Set<BackfillKind>, windows: RetentionWindows, limit: Int,
                                   sourceSlug: String? = nil, at now: Date = Date()) async throws -> [BackfillCandidate] {
        let ordered = BackfillKind.allCases.filter(kinds.contains)
        guard !ordered.isEmpty else { return [] }
        // Column names come from the enum above, never from input.
        let conditions = ordered.map { kind in
            """
            (\(kind.missing) AND a.created_at > $1::timestamptz - make_interval(days => \(kind.window(windows)))
             AND a.\(kind.attemptsColumn) < 3
             AND (a.\(kind.lastAttemptColumn) IS NULL OR a.\(kind.lastAttemptColumn) < $1::timestamptz - interval '24 hours'))
            """
        }
        let flags = zip(ordered, conditions).map { "\($1) AS wants_\($0.rawValue)" }.joined(separator: ", ")
        let sql = """
            SELECT a.id, a.url, a.title, a.summary, a.content, a.language, a.source_slug, a.thumbnail_url, \(flags)
            FROM public.articles a
            WHERE (\(conditions.joined(separator: " OR ")))
              AND ($3::text IS NULL OR a.source_slug = $3)
              -- An episode stored under its enclosure URL has no page: never fetch the media file.
              AND (a.media_url IS NULL OR a.url <> a.media_url)
            ORDER BY a.created_at, a.id
            LIMIT $2
            """
        return try await connection.withReconnect(label: "backfill candidates") { db in
            try db.query(sql, [now, limit, sourceSlug], label: "backfill candidates").rows.map { row in
                BackfillCandidate(
                    id: row["id"] ?? "", url: row["url"] ?? "", title: row["title"] ?? "", summary: row["summary"],
                    content: row["content"], language: row["language"] ?? "en", sourceSlug: row["source_slug"],
                    thumbnailURL: row["thumbnail_url"],
                    kinds: Set(ordered.filter { row.bool("wants_\($0.rawValue)") == true }))
            }
        }
    }

    /// Writes what enrichment found, in one statement per batch. A language marks the row detected.
    @discardableResult
    public func applyEnrichment(_ updates: [EnrichmentUpdate]) async throws -> Int {
        guard !updates.isEmpty else { return 0 }
        struct Row: Encodable {
            let id: String, image_url: String?, content: String?, language: String?
        }
        let payload = String(decoding: try JSONEncoder().encode(updates.map {
            Row(id: $0.id, image_url: $0.imageURL, content: $0.content, language: $0.language)
        }), as: UTF8.self)
        return try await connection.withReconnect(label: "apply enrichment") { db in
            try db.query("""
                UPDATE public.articles a SET
                    image_url = coalesce(u.image_url, a.image_url),
                    content = coalesce(u.content, a.content),
                    language = coalesce(u.language, a.language),
                    language_detected = a.language_detected OR u.language IS NOT NULL
                FROM jsonb_to_recordset($1::jsonb) AS u(id uuid, image_url text, content text, language text)
                WHERE a.id = u.id
                """, [payload], label: "apply enrichment").affectedRows
        }
    }

    /// Rows whose og:image attempts are used up but that have a feed thumbnail show the thumbnail:
    /// rows stored before image_url took the thumbnail at insert get their picture this way.
    @discardableResult
    public func fillImagesFromThumbnails(windows: RetentionWindows, sourceSlug: String? = nil,
                                         at now: Date = Date()) async throws -> Int {
        try await connection.withReconnect(label: "images from thumbnails") { db in
            try db.query("""
                UPDATE public.articles a SET image_url = a.thumbnail_url
                WHERE a.image_url IS NULL AND a.thumbnail_url IS NOT NULL
                  AND a.image_backfill_attempts >= 3
                  AND a.created_at > $1::timestamptz - make_interval(days => $2::integer)
                  AND ($3::text IS NULL OR a.source_slug = $3)
                """, [now, windows.imageDays, sourceSlug], label: "images from thumbnails").affectedRows
        }
    }

    /// Counts a failed attempt for these rows and kind (it stops being a candidate after 3, and
    /// for 24 hours after each).
    @discardableResult
    public func bumpBackfillAttempts(ids: [String], kind: BackfillKind, at now: Date = Date()) async throws -> Int {
        guard !ids.isEmpty else { return 0 }
        let sql = """
            UPDATE public.articles SET \(kind.attemptsColumn) = \(kind.attemptsColumn) + 1,
                   \(kind.lastAttemptColumn) = $2::timestamptz
            WHERE id = ANY ($1::uuid[])
            """
        let list = PostgresArray.text(ids)
        return try await connection.withReconnect(label: "bump backfill attempts") { db in
            try db.query(sql, [list, now], label: "bump backfill attempts").affectedRows
        }
    }
}
