import FoundationEssentials
import Postgres

/// A source row as the fetch pipeline needs it.
public struct SourceRecord: Sendable, Equatable {
    public var id: String
    public var slug: String
    public var name: String
    public var feedURL: String
    public var language: String
    public var fetchIntervalHours: Int
    public var maxContentLength: Int?
    public var etag: String?
    public var lastModified: String?
    public var consecutiveFailures: Int
    public var circuitOpenUntil: Date?
    public var lastFetchedAt: Date?
    public var isActive: Bool
    /// false: the configured language is stored as it is (`language_detection: off`).
    public var languageDetection: Bool
    /// A verified WebSub subscription with a live lease: pushes bring its items, so it is polled
    /// at the relaxed interval (polling stays the safety net).
    public var pushSubscribed: Bool

    static let selectColumns = """
        s.id, s.slug, s.name, s.feed_url, s.language, s.fetch_interval_hours, s.max_content_length, s.etag, s.last_modified,
        s.consecutive_failures, s.circuit_open_until, s.last_fetched_at, s.is_active, s.language_detection,
        EXISTS (SELECT 1 FROM public.websub_subscriptions w WHERE w.source_id = s.id AND w.state = 'subscribed'
                AND w.lease_expires_at > now()) AS push_subscribed
        """

    init(row: QueryResult.Row) {
        id = row["id"] ?? ""
        slug = row["slug"] ?? ""
        name = row["name"] ?? ""
        feedURL = row["feed_url"] ?? ""
        language = row["language"] ?? "en"
        fetchIntervalHours = row.int("fetch_interval_hours") ?? 2
        maxContentLength = row.int("max_content_length")
        etag = row["etag"]
        lastModified = row["last_modified"]
        consecutiveFailures = row.int("consecutive_failures") ?? 0
        circuitOpenUntil = row.date("circuit_open_until")
        lastFetchedAt = row.date("last_fetched_at")
        isActive = row.bool("is_active") ?? true
        languageDetection = row.bool("language_detection") ?? true
        pushSubscribed = row.bool("push_subscribed") ?? false
    }
}
