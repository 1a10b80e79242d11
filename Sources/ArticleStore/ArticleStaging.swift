import Foundation
import Logging
import Postgres

/// How one chunk of rows reaches `articles`: COPY into a temporary table of the session, then one
/// INSERT ... SELECT ... ON CONFLICT DO NOTHING, in one transaction. Measured against the earlier
/// single statement over `jsonb_to_recordset($1)` (which stays as the fallback for roles without
/// the TEMPORARY privilege): PostgreSQL no longer parses each batch as a JSON document and turns
/// it back into records, and the daemon no longer runs JSONEncoder.
extension ArticleStore {
    func insertChunk(_ chunk: ArraySlice<ArticleRow>, sourceID: String, on lane: PostgresConnection)
        async throws -> [QueryResult.Row]
    {
        if !stagingRefused.isSet {
            let data = Self.copyText(chunk)
            do {
                return try await lane.withReconnect(label: "insert articles") { db in
                    // Outside the transaction: a rollback must not take the table away unnoticed.
                    try db.once("article stage", Self.createStageSQL, label: "create article stage")
                    return try db.withTransaction(label: "insert articles") { db in
                        try db.copyIn(Self.copyStageSQL, data: data, label: "stage articles")
                        return try db.query(Self.insertFromStageSQL, [sourceID], label: "insert articles").rows
                    }
                }
            } catch let error as PostgresError where error.sqlState == "42501" && error.statement == "create article stage" {
                if stagingRefused.set() {
                    logger.warning("this role may not create temporary tables; articles are sent as JSON instead",
                                   metadata: ["error": "\(error)"])
                }
            }
        }
        let payload = try String(decoding: JSONEncoder().encode(Array(chunk)), as: UTF8.self)
        return try await lane.withReconnect(label: "insert articles") { db in
            try db.query(Self.insertFromJSONSQL, [payload, sourceID], label: "insert articles").rows
        }
    }

    /// The columns the feed side supplies, in COPY order; the rest come from the live source row.
    static let stagedColumns = """
        title, summary, content, url, url_hash, image_url, thumbnail_url, author, published_at, media_type,
        media_url, media_duration, media_mime_type, language, language_detected
        """

    /// Per session (temporary); emptied by every commit. `pg_temp.` so no other schema's table of
    /// the same name can stand in for it.
    static let createStageSQL = """
        CREATE TEMPORARY TABLE pulse_article_stage (
            title text, summary text, content text, url text, url_hash text, image_url text,
            thumbnail_url text, author text, published_at timestamptz, media_type text,
            media_url text, media_duration integer, media_mime_type text, language text,
            language_detected boolean) ON COMMIT DELETE ROWS
        """

    static let copyStageSQL = "COPY pg_temp.pulse_article_stage (\(stagedColumns)) FROM STDIN"

    /// The insert of rows `r` read from `rows`; the source and category columns come from the
    /// live rows (`$sourceParameter`), in the same statement.
    static func insertSQL(rows: String, sourceParameter: Int) -> String {
        """
        INSERT INTO public.articles (\(stagedColumns),
            source_id, category_id, source_name, source_slug, category_name, category_slug)
        SELECT r.title, r.summary, r.content, r.url, r.url_hash, r.image_url, r.thumbnail_url, r.author,
               r.published_at, r.media_type, r.media_url, r.media_duration, r.media_mime_type, r.language,
               r.language_detected, s.id, s.category_id, s.name, s.slug, c.name, c.slug
        FROM \(rows)
        JOIN public.sources s ON s.id = $\(sourceParameter)::uuid
        LEFT JOIN public.categories c ON c.id = s.category_id
        ON CONFLICT (url_hash) DO NOTHING
        RETURNING id, url_hash
        """
    }

    static let insertFromStageSQL = insertSQL(rows: "pg_temp.pulse_article_stage AS r", sourceParameter: 1)

    /// The fallback: the same insert over the chunk sent as one JSON array.
    static let insertFromJSONSQL = insertSQL(rows: """
        jsonb_to_recordset($1::jsonb) AS r(
                title text, summary text, content text, url text, url_hash text, image_url text,
                thumbnail_url text, author text, published_at timestamptz, media_type text,
                media_url text, media_duration integer, media_mime_type text, language text,
                language_detected boolean)
        """, sourceParameter: 2)

    /// The rows in `stagedColumns` order, in COPY's text format.
    static func copyText(_ rows: ArraySlice<ArticleRow>) -> [UInt8] {
        var text = CopyText(reservingCapacity: rows.reduce(0) { $0 + $1.approximateBytes })
        for row in rows {
            text.append(row.title)
            text.append(row.summary)
            text.append(row.content)
            text.append(row.url)
            text.append(row.urlHash)
            text.append(row.imageURL)
            text.append(row.thumbnailURL)
            text.append(row.author)
            text.append(row.publishedAt)
            text.append(row.mediaType)
            text.append(row.mediaURL)
            text.append(row.mediaDuration)
            text.append(row.mediaMimeType)
            text.append(row.language)
            text.append(row.languageDetected)
            text.endRow()
        }
        return text.bytes
    }
}

extension ArticleRow {
    var approximateBytes: Int {
        title.utf8.count + (summary?.utf8.count ?? 0) + (content?.utf8.count ?? 0) + url.utf8.count + 200
    }
}
