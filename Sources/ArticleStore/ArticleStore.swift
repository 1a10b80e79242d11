import Foundation
import Logging
import Postgres
import PulseModel

/// What one batch insert did.
public struct InsertOutcome: Sendable, Equatable {
    /// Candidates handed in.
    public var received = 0
    /// Rows that were new and are now stored.
    public var inserted = 0
    /// Rows whose canonical URL was already stored (or repeated within the batch).
    public var duplicates = 0
    /// Candidates refused by the contract's rules, by reason.
    public var rejected: [ArticleRejection: Int] = [:]
    /// The rows this call stored, with their new ids (enrichment works on these only).
    public var stored: [StoredArticle] = []

    public var rejectedCount: Int { rejected.values.reduce(0, +) }
}

/// A row this process just inserted.
public struct StoredArticle: Sendable, Equatable {
    public var id: String
    public var row: ArticleRow
}

/// The database side of ingestion: every write keeps the data contract's invariants.
public struct ArticleStore: Sendable {
    public let connection: PostgresConnection
    /// Rows per INSERT statement (each statement is its own transaction).
    public var chunkSize: Int

    public init(connection: PostgresConnection, chunkSize: Int = 250) {
        self.connection = connection
        self.chunkSize = max(1, chunkSize)
    }

    /// Inserts new articles for one source, ON CONFLICT (url_hash) DO NOTHING, in chunks. A lost
    /// connection is re-established and the unfinished chunk re-sent: committed chunks stay, and
    /// the conflict rule makes the re-send insert each remaining row exactly once.
    /// `onChunkCommitted` runs after each chunk with the count stored so far.
    public func insertArticles(
        _ candidates: [ArticleCandidate], source: SourceRecord, now: Date = Date(),
        onChunkCommitted: (@Sendable (Int) async -> Void)? = nil
    ) async throws -> InsertOutcome {
        var outcome = InsertOutcome(received: candidates.count)
        let builder = ArticleRowBuilder(now: now, sourceLanguage: source.language,
                                        sourceMaxContentLength: source.maxContentLength)
        var seen = Set<String>()
        var rows: [ArticleRow] = []
        for candidate in candidates {
            switch builder.build(candidate) {
            case .failure(let reason):
                outcome.rejected[reason, default: 0] += 1
            case .success(let row):
                if seen.insert(row.urlHash).inserted { rows.append(row) } else { outcome.duplicates += 1 }
            }
        }
        let encoder = JSONEncoder()
        var start = 0
        while start < rows.count {
            let chunk = Array(rows[start..<min(start + chunkSize, rows.count)])
            let payload = String(decoding: try encoder.encode(chunk), as: UTF8.self)
            let returned = try await connection.withReconnect(label: "insert articles") { db in
                try db.query(Self.insertSQL, [payload, source.id], label: "insert articles").rows
            }
            let byHash = Dictionary(chunk.map { ($0.urlHash, $0) }, uniquingKeysWith: { first, _ in first })
            for row in returned {
                guard let id = row["id"], let hash = row["url_hash"], let article = byHash[hash] else { continue }
                outcome.stored.append(StoredArticle(id: id, row: article))
            }
            outcome.inserted += returned.count
            outcome.duplicates += chunk.count - returned.count
            start += chunk.count
            await onChunkCommitted?(outcome.inserted)
        }
        return outcome
    }

    /// The source and category columns come from the live rows, in the same statement.
    static let insertSQL = """
        INSERT INTO public.articles (
            title, summary, content, url, url_hash, image_url, thumbnail_url, author, published_at,
            media_type, media_url, media_duration, media_mime_type, language, language_detected,
            source_id, category_id, source_name, source_slug, category_name, category_slug)
        SELECT r.title, r.summary, r.content, r.url, r.url_hash, r.image_url, r.thumbnail_url, r.author,
               r.published_at, r.media_type, r.media_url, r.media_duration, r.media_mime_type, r.language,
               r.language_detected, s.id, s.category_id, s.name, s.slug, c.name, c.slug
        FROM jsonb_to_recordset($1::jsonb) AS r(
                title text, summary text, content text, url text, url_hash text, image_url text,
                thumbnail_url text, author text, published_at timestamptz, media_type text,
                media_url text, media_duration integer, media_mime_type text, language text,
                language_detected boolean)
        JOIN public.sources s ON s.id = $2::uuid
        LEFT JOIN public.categories c ON c.id = s.category_id
        ON CONFLICT (url_hash) DO NOTHING
        RETURNING id, url_hash
        """

    /// Active sources whose interval has elapsed and whose circuit is closed, oldest fetch first.
    /// `slugs` narrows the set (`--source`); unknown slugs are the caller's to report.
    public func dueSources(at now: Date = Date(), slugs: [String]? = nil) async throws -> [SourceRecord] {
        let filter: String? = slugs.map { PostgresArray.text($0) }
        return try await connection.withReconnect(label: "due sources") { db in
            try db.query("""
                SELECT \(SourceRecord.selectColumns)
                FROM public.sources s LEFT JOIN public.categories c ON c.id = s.category_id
                WHERE \(Self.dueCondition)
                  AND ($2::text[] IS NULL OR s.slug = ANY ($2::text[]))
                ORDER BY s.last_fetched_at NULLS FIRST, s.slug
                """, [now, filter], label: "due sources").rows.map(SourceRecord.init(row:))
        }
    }

    /// Active, circuit closed, and due: the scheduled `next_due_at`, else the last fetch plus the
    /// configured interval, has passed (`$1` is now). Shared by `--once` and the daemon's claims.
    static let dueCondition = """
        s.is_active
        AND (s.circuit_open_until IS NULL OR s.circuit_open_until <= $1::timestamptz)
        AND coalesce(s.next_due_at, s.last_fetched_at + make_interval(hours => s.fetch_interval_hours),
                     '-infinity') <= $1::timestamptz
        """

    /// One source by slug, active or not.
    public func source(slug: String) async throws -> SourceRecord? {
        try await connection.withReconnect(label: "source by slug") { db in
            try db.query("""
                SELECT \(SourceRecord.selectColumns)
                FROM public.sources s LEFT JOIN public.categories c ON c.id = s.category_id
                WHERE s.slug = $1
                """, [slug], label: "source by slug").rows.first.map(SourceRecord.init(row:))
        }
    }
}
