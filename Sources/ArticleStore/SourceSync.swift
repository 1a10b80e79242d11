import Postgres
import PulseModel

/// What synchronising `feeds.yaml` into the database changed.
public struct SyncReport: Sendable, Equatable {
    public var categoriesInserted = 0
    public var categoriesUpdated = 0
    public var sourcesInserted = 0
    public var sourcesUpdated = 0
    public var sourcesUnchanged = 0
    /// Slugs set inactive because they left the YAML (only with `prune_unlisted: true`).
    public var sourcesDeactivated: [String] = []
    /// Sources in the database but not in the YAML, left alone.
    public var sourcesUnlisted = 0
}

extension ArticleStore {
    /// Upserts categories then sources by slug, in one transaction: inserts new ones, updates
    /// changed fields, never deletes. Sources missing from the YAML are deactivated only when
    /// `deactivateUnlisted` is set.
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
                    let result = try db.query("""
                        INSERT INTO public.sources (slug, name, feed_url, website_url, category_id, language,
                                                    fetch_interval_hours, max_content_length, is_active)
                        SELECT $1, $2, $3, $4, c.id, $6, $7, $8, $9 FROM public.categories c WHERE c.slug = $5
                        ON CONFLICT (slug) DO UPDATE SET
                            name = EXCLUDED.name, feed_url = EXCLUDED.feed_url, website_url = EXCLUDED.website_url,
                            category_id = EXCLUDED.category_id, language = EXCLUDED.language,
                            fetch_interval_hours = EXCLUDED.fetch_interval_hours,
                            max_content_length = EXCLUDED.max_content_length, is_active = EXCLUDED.is_active,
                            updated_at = now()
                        WHERE (sources.name, sources.feed_url, sources.website_url, sources.category_id,
                               sources.language, sources.fetch_interval_hours, sources.max_content_length,
                               sources.is_active)
                              IS DISTINCT FROM
                              (EXCLUDED.name, EXCLUDED.feed_url, EXCLUDED.website_url, EXCLUDED.category_id,
                               EXCLUDED.language, EXCLUDED.fetch_interval_hours, EXCLUDED.max_content_length,
                               EXCLUDED.is_active)
                        RETURNING (xmax = 0) AS inserted
                        """, [source.slug, source.name, source.feedURL, source.websiteURL, source.categorySlug,
                              source.language, source.fetchIntervalHours, source.maxContentLength, source.isActive],
                        label: "sync source \(source.slug)")
                    if let inserted = result.rows.first?.bool("inserted") {
                        if inserted { report.sourcesInserted += 1 } else { report.sourcesUpdated += 1 }
                    } else {
                        report.sourcesUnchanged += 1
                    }
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
}
