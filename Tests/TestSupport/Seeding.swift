import ArticleStore
import Postgres
import PulseModel

/// Sources used across store tests, synchronised the way `--migrate` does it.
public enum Seed {
    public static let categories: [CategoryDefinition] = [
        ("world", "World"), ("technology", "Technology"), ("business", "Business"), ("sports", "Sports"),
        ("entertainment", "Entertainment"), ("science", "Science"), ("health", "Health"),
        ("politics", "Politics"), ("podcasts", "Podcasts"), ("videos", "Videos"),
    ].enumerated().map { CategoryDefinition(slug: $1.0, name: $1.1, displayOrder: $0 + 1) }

    public static func source(_ slug: String, category: String = "world", language: String = "en",
                       active: Bool? = nil, maxContentLength: Int? = nil) -> SourceDefinition {
        SourceDefinition(slug: slug, name: "Source \(slug)", feedURL: "https://feeds.example.com/\(slug).xml",
                         websiteURL: "https://example.com", categorySlug: category, language: language,
                         fetchIntervalHours: 2, maxContentLength: maxContentLength, isActive: active)
    }

    /// Migrated database with the given sources; returns the store (as service_role) and the records.
    public static func store(_ database: TestDatabase, sources: [SourceDefinition]) async throws
        -> (ArticleStore, [String: SourceRecord]) {
        let store = ArticleStore(connection: try await database.migratedConnection())
        _ = try await store.synchronize(categories: categories, sources: sources, deactivateUnlisted: false)
        var records: [String: SourceRecord] = [:]
        for source in sources { records[source.slug] = try await store.source(slug: source.slug) }
        return (store, records)
    }
}
