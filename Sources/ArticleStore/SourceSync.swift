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
    /// when `deactivateUnlisted` is set.
    public func synchronize(categories: [CategoryDefinition], sources: [SourceDefinition],
                            deactivateUnlisted: Bool) async throws -> SyncReport {
        try await connection.withReconnect(label: "sync sources") { db in
            try db.withTransaction(label: "sync sources") { db in
                var report = SyncReport()
                for category in categories {
                    let row = try db.query("""
                        INSERT INTO public.categories (name, slug, display_order) VALUES ($1, $2, $3)
                        ON CONFLICT (slug) DO UPDATE SET name = EXCLUDED.name, display_order = EXCLUDED.display_order
                        WHERE (categories.name, categories.display_order)
                              IS DISTINCT FROM (EXCLUDED.name, EXCLUDED.display_order)
                        RETURNING (xmax = 0) AS inserted
                        """, [category.name, category.slug, category.displayOrder], label: "sync category").rows.first
                    if let inserted = row?.bool("inserted") {
                        if inserted { report.categoriesInserted += 1 } else { report.categoriesUpdated += 1 }
                    }
                }
                for source in sources {
                    try Self.synchronize(source, in: db, into: &report)
                }
                let listed = PostgresArray.text(sources.map(\.slug))
                if deactivateUnlisted {
                    report.sourcesDeactivated = try db.query("""
                        UPDATE public.sources SET is_active = false, updated_at = now()
                        WHERE is_active AND slug <> ALL ($1::text[]) RETURNING slug
                        """, [listed], label: "deactivate unlisted sources").rows.compactMap { $0["slug"] }.sorted()
                }
                report.sourcesUnlisted = try db.query(
                    "SELECT count(*) FROM public.sources WHERE slug <> ALL ($1::text[])", [listed],
                    label: "count unlisted sources").rows.first?.int("count") ?? 0
                return report
            }
        }
    }

    /// The columns the file owns, compared in SQL (`IS DISTINCT FROM`, so NULLs compare as values)
    /// against the locked row; the update then writes exactly those.
    private static func synchronize(_ source: SourceDefinition, in db: isolated PostgresConnection,
                                    into report: inout SyncReport) throws {
        let values: [any PostgresEncodable] = [source.slug, source.name, source.feedURL, source.websiteURL,
                                            source.categorySlug, source.language, source.fetchIntervalHours,
                                            source.maxContentLength, source.isActive]
        let label = "sync source \(source.slug)"
        let existing = try db.query("""
            SELECT s.is_active,
                   s.name IS DISTINCT FROM $2 AS name,
                   s.feed_url IS DISTINCT FROM $3 AS feed_url,
                   s.website_url IS DISTINCT FROM $4 AS website_url,
                   s.category_id IS DISTINCT FROM (SELECT c.id FROM public.categories c WHERE c.slug = $5) AS category,
                   s.language IS DISTINCT FROM $6 AS language,
                   s.fetch_interval_hours IS DISTINCT FROM $7::integer AS fetch_interval_hours,
                   s.max_content_length IS DISTINCT FROM $8::integer AS max_content_length,
                   ($9::boolean IS NOT NULL AND s.is_active IS DISTINCT FROM $9::boolean) AS is_active_changed
            FROM public.sources s WHERE s.slug = $1 FOR UPDATE
            """, values, label: label).rows.first
        guard let existing else {
            try db.query("""
                INSERT INTO public.sources (slug, name, feed_url, website_url, category_id, language,
                                            fetch_interval_hours, max_content_length, is_active)
                SELECT $1, $2, $3, $4, c.id, $6, $7, $8, coalesce($9::boolean, true)
                FROM public.categories c WHERE c.slug = $5
                """, values, label: label)
            report.sourcesInserted.append(source.slug)
            return
        }
        let columns = ["name", "feed_url", "website_url", "category", "language", "fetch_interval_hours",
                       "max_content_length"]
        var changed = columns.filter { existing.bool($0) == true }
        if existing.bool("is_active_changed") == true { changed.append("is_active") }
        let activeInDatabase = existing.bool("is_active") ?? true
        if source.isActive == nil, !activeInDatabase { report.sourcesLeftInactive.append(source.slug) }
        if source.isActive == false, activeInDatabase { report.sourcesDeactivatedByFile.append(source.slug) }
        guard !changed.isEmpty else {
            report.sourcesUnchanged += 1
            return
        }
        try db.query("""
            UPDATE public.sources s SET
                name = $2, feed_url = $3, website_url = $4,
                category_id = (SELECT c.id FROM public.categories c WHERE c.slug = $5),
                language = $6, fetch_interval_hours = $7, max_content_length = $8,
                is_active = coalesce($9::boolean, s.is_active), updated_at = now()
            WHERE s.slug = $1
            """, values, label: label)
        report.sourcesUpdated.append(SyncReport.SourceChange(slug: source.slug, fields: changed))
    }
}
