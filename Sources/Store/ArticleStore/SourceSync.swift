import Postgres
import PulseModel

/// What synchronising `feeds.yaml` into the database changed, by slug, so `--migrate` and SIGHUP
/// can say exactly what they did.
public struct SyncReport: Sendable, Equatable {
    public var categoriesInserted = 0
    public var categoriesUpdated = 0
    /// Sources new to the database.
    public var sourcesInserted: [String] = []
    /// Existing sources whose row changed: slug and the changed column names.
    public var sourcesUpdated: [SourceChange] = []
    public var sourcesUnchanged = 0
    /// Inactive in the database, listed in the file without `active:`: left inactive.
    public var sourcesLeftInactive: [String] = []
    /// Active in the database, `active: false` in the file: turned off by the file.
    public var sourcesDeactivatedByFile: [String] = []
    /// Slugs set inactive because they left the YAML (only with `prune_unlisted: true`).
    public var sourcesDeactivated: [String] = []
    /// Sources in the database but not in the YAML, left alone.
    public var sourcesUnlisted = 0

    public struct SourceChange: Sendable, Equatable, CustomStringConvertible {
        public var slug: String
        public var fields: [String]
        public var description: String { "\(slug) (\(fields.joined(separator: ", ")))" }

        public init(slug: String, fields: [String]) {
            self.slug = slug
            self.fields = fields
        }
    }
}

extension ArticleStore {
    /// Upserts categories then sources by slug, in one transaction: inserts new ones, updates
    /// changed fields, never deletes. `is_active` changes only where the file says `active:`
    /// explicitly (operators and upstream migrations deactivate dead sources in the database, and
    /// a sync must not turn them back on). Sources missing from the YAML are deactivated only
    /// when `deactivateUnlisted` is set. A `dryRun` does all of it and rolls it back: the report
    /// says what the sync would do.
    public func synchronize(categories: [CategoryDefinition], sources: [SourceDefinition],
                            deactivateUnlisted: Bool, dryRun: Bool = false) async throws -> SyncReport {
        do {
            return try await connection.withReconnect(label: "sync sources") { db in
                try db.withTransaction(label: "sync sources") { db in
                    // One sync at a time per database (services starting together, --migrate beside
                    // them): two that both found a new source absent inserted it twice (23505). The
                    // lock is the transaction's, so it is never left on a pooled session.
                    try db.query("SELECT pg_advisory_xact_lock($1)", [Self.syncLockKey], label: "sync sources: lock")
                    var report = SyncReport()
                    for category in categories {
                        // An unchanged category is not locked: ON CONFLICT DO UPDATE locks the row even
                        // when its WHERE says no, and a daemon's insert holding its source row (the
                        // foreign key check) while waiting for the category deadlocked with this sync.
                        let row = try db.query("""
                            WITH changed AS (
                                UPDATE public.categories SET name = $1::text, display_order = $3::integer
                                WHERE slug = $2::text AND (name, display_order) IS DISTINCT FROM ($1::text, $3::integer)
                                RETURNING false AS inserted
                            ), added AS (
                                INSERT INTO public.categories (name, slug, display_order)
                                SELECT $1::text, $2::text, $3::integer
                                WHERE NOT EXISTS (SELECT 1 FROM public.categories WHERE slug = $2::text)
                                ON CONFLICT (slug) DO NOTHING
                                RETURNING true AS inserted
                            )
                            SELECT inserted FROM changed UNION ALL SELECT inserted FROM added
                            """, [category.name, category.slug, category.displayOrder], label: "sync category").rows.first
                        if let inserted = row?.bool("inserted") {
                            if inserted { report.categoriesInserted += 1 } else { report.categoriesUpdated += 1 }
                        }
                    }
                    try Self.synchronize(sources, in: db, into: &report)
                    let listed = PostgresArray.text(sources.map(\.slug))
                    if deactivateUnlisted {
                        report.sourcesDeactivated = try db.query("""
                            UPDATE public.sources SET is_active = false, updated_at = now()
                            WHERE is_active AND slug <> ALL ($1::text[]) RETURNING slug
                            """, [listed], label: "deactivate unlisted sources").rows.compactMap { $0["slug"] }.sorted()
                    }
                    // Every source less the listed ones present, through `source_totals` (kept by
                    // triggers, migration 15) and the slug index: counting the rows not in the list
                    // read the whole table (205 ms at 1,000,000 sources).
                    report.sourcesUnlisted = try db.query("""
                        SELECT coalesce((SELECT sources FROM public.source_totals), (SELECT count(*) FROM public.sources))
                               - (SELECT count(*) FROM public.sources WHERE slug = ANY ($1::text[])) AS unlisted
                        """, [listed], label: "count unlisted sources").rows.first?.int("unlisted") ?? 0
                    if dryRun { throw DryRunRolledBack(report: report) }
                    return report
                }
            }
        } catch let rolledBack as DryRunRolledBack {
            return rolledBack.report
        }
    }

    /// Thrown out of a dry run's transaction, so it rolls back, with what it did.
    private struct DryRunRolledBack: Error {
        let report: SyncReport
    }

    /// Key of the sync's advisory lock ("pulse-ingest sync").
    static let syncLockKey: Int64 = 0x7075_6C73_6573_796E

    /// The columns the file owns, compared in SQL (`IS DISTINCT FROM`, so NULLs compare as values)
    /// against the locked rows; the update then writes exactly those rows. Three statements for
    /// the whole file (compare and lock, insert the new, update the changed), each reading the
    /// sources as one array per column: one statement pair per source was 2,000 round trips,
    /// about 0.6 s of every start and reload of the service with the 2,000-feed farm.
    /// Rows are locked in slug order, so two services syncing at once wait rather than deadlock.
    /// Slugs are unique (the configuration refuses duplicates); a repeated one is an error.
    private static func synchronize(_ sources: [SourceDefinition], in db: isolated PostgresConnection,
                                    into report: inout SyncReport) throws {
        guard !sources.isEmpty else { return }
        var seen = Set<String>()
        if let repeated = sources.first(where: { !seen.insert($0.slug).inserted }) {
            throw PostgresError(kind: .client, statement: "sync sources",
                                message: "source slug '\(repeated.slug)' is listed twice")
        }
        let arrays = columnArrays(sources)
        var existing: [String: QueryResult.Row] = [:]
        for row in try db.query("""
            SELECT v.slug, s.is_active,
                   s.name IS DISTINCT FROM v.name AS name,
                   s.feed_url IS DISTINCT FROM v.feed_url AS feed_url,
                   s.website_url IS DISTINCT FROM v.website_url AS website_url,
                   s.category_id IS DISTINCT FROM c.id AS category,
                   s.language IS DISTINCT FROM v.language AS language,
                   s.fetch_interval_hours IS DISTINCT FROM v.fetch_interval_hours AS fetch_interval_hours,
                   s.max_content_length IS DISTINCT FROM v.max_content_length AS max_content_length,
                   s.language_detection IS DISTINCT FROM v.language_detection AS language_detection,
                   (v.is_active IS NOT NULL AND s.is_active IS DISTINCT FROM v.is_active) AS is_active_changed
            FROM \(definitions) JOIN public.sources s ON s.slug = v.slug
            LEFT JOIN public.categories c ON c.slug = v.category_slug
            ORDER BY s.slug
            FOR UPDATE OF s
            """, arrays, label: "sync sources: compare").rows {
            if let slug = row["slug"] { existing[slug] = row }
        }

        var inserted: [SourceDefinition] = []
        var changedRows: [SourceDefinition] = []
        let columns = ["name", "feed_url", "website_url", "category", "language", "fetch_interval_hours",
                       "max_content_length", "language_detection"]
        for source in sources {
            guard let row = existing[source.slug] else {
                inserted.append(source)
                report.sourcesInserted.append(source.slug)
                continue
            }
            var changed = columns.filter { row.bool($0) == true }
            if row.bool("is_active_changed") == true { changed.append("is_active") }
            let activeInDatabase = row.bool("is_active") ?? true
            if source.isActive == nil, !activeInDatabase { report.sourcesLeftInactive.append(source.slug) }
            if source.isActive == false, activeInDatabase { report.sourcesDeactivatedByFile.append(source.slug) }
            if changed.isEmpty {
                report.sourcesUnchanged += 1
            } else {
                changedRows.append(source)
                report.sourcesUpdated.append(SyncReport.SourceChange(slug: source.slug, fields: changed))
            }
        }
        if !inserted.isEmpty {
            // A source whose category is not in the table is not inserted (the join), as before.
            try db.query("""
                INSERT INTO public.sources (slug, name, feed_url, website_url, category_id, language,
                                            fetch_interval_hours, max_content_length, is_active, language_detection)
                SELECT v.slug, v.name, v.feed_url, v.website_url, c.id, v.language, v.fetch_interval_hours,
                       v.max_content_length, coalesce(v.is_active, true), v.language_detection
                FROM \(definitions) JOIN public.categories c ON c.slug = v.category_slug
                ORDER BY v.position
                """, columnArrays(inserted), label: "sync sources: insert")
        }
        if !changedRows.isEmpty {
            try db.query("""
                UPDATE public.sources s SET
                    name = v.name, feed_url = v.feed_url, website_url = v.website_url,
                    category_id = (SELECT c.id FROM public.categories c WHERE c.slug = v.category_slug),
                    language = v.language, fetch_interval_hours = v.fetch_interval_hours,
                    max_content_length = v.max_content_length, language_detection = v.language_detection,
                    is_active = coalesce(v.is_active, s.is_active), updated_at = now()
                FROM \(definitions)
                WHERE s.slug = v.slug
                """, columnArrays(changedRows), label: "sync sources: update")
        }
    }

    /// The sources as the rows `v` of `columnArrays`, in file order (`position`).
    private static let definitions = """
        unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::integer[],
               $8::integer[], $9::boolean[], $10::boolean[]) WITH ORDINALITY
            AS v(slug, name, feed_url, website_url, category_slug, language, fetch_interval_hours,
                 max_content_length, is_active, language_detection, position)
        """

    private static func columnArrays(_ sources: [SourceDefinition]) -> [any PostgresEncodable] {
        func column<Value: ArrayElement>(_ value: (SourceDefinition) -> Value?) -> String { PostgresArray.column(sources, value) }
        return [column(\.slug), column(\.name), column(\.feedURL), column(\.websiteURL), column(\.categorySlug),
                column(\.language), column(\.fetchIntervalHours), column(\.maxContentLength), column(\.isActive),
                column(\.languageDetection)]
    }
}

extension ArticleStore {
    /// Every category in the database, in display order (slug order within one).
    public func storedCategories() async throws -> [CategoryDefinition] {
        try await connection.withReconnect(label: "read categories") { db in
            try db.query("""
                SELECT slug, name, display_order FROM public.categories
                ORDER BY display_order NULLS LAST, slug COLLATE "C"
                """, label: "read categories").rows.map { row in
                CategoryDefinition(slug: row["slug"] ?? "", name: row["name"] ?? "",
                                   displayOrder: row.int("display_order") ?? 0)
            }
        }
    }

    /// Every source in the database, in slug order (byte order, whatever the database's collation),
    /// with the columns a sync writes; a source without a category has an empty `categorySlug`.
    public func storedSources() async throws -> [SourceDefinition] {
        try await connection.withReconnect(label: "read sources") { db in
            try db.query("""
                SELECT s.slug, s.name, s.feed_url, s.website_url, c.slug AS category_slug, s.language,
                       s.fetch_interval_hours, s.max_content_length, s.is_active, s.language_detection
                FROM public.sources s LEFT JOIN public.categories c ON c.id = s.category_id
                ORDER BY s.slug COLLATE "C"
                """, label: "read sources").rows.map { row in
                SourceDefinition(
                    slug: row["slug"] ?? "", name: row["name"] ?? "", feedURL: row["feed_url"] ?? "",
                    websiteURL: row["website_url"], categorySlug: row["category_slug"] ?? "",
                    language: row["language"] ?? "", fetchIntervalHours: row.int("fetch_interval_hours") ?? 0,
                    maxContentLength: row.int("max_content_length"), isActive: row.bool("is_active"),
                    languageDetection: row.bool("language_detection") ?? true)
            }
        }
    }

    /// Slugs of the sources whose language is never detected (`language_detection` false).
    public func sourcesWithoutLanguageDetection() async throws -> Set<String> {
        try await connection.withReconnect(label: "read language detection") { db in
            Set(try db.query("SELECT slug FROM public.sources WHERE NOT language_detection",
                             label: "read language detection").rows.compactMap { $0["slug"] })
        }
    }
}
