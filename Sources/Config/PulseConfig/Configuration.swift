import PulseModel
// The typed result of loading feeds.yaml. Every value here has already been validated by
// ConfigLoader, so consumers (scheduler, fetcher, source sync, retention) can trust the ranges.

/// The whole validated configuration.
public struct PulseConfiguration: Sendable, Equatable {
    public var version: Int = 1
    public var defaults = SourceDefaults()
    public var fetch = FetchSettings()
    public var schedule = ScheduleSettings()
    public var enrichment = EnrichmentConfig()
    public var retention = RetentionSettings()
    /// The WebSub push subscriber (off by default).
    public var websub = WebSubSettings()
    /// When true, source sync deactivates DB sources that are absent from the file.
    public var pruneUnlisted: Bool = false
    /// In display order (`displayOrder` == position).
    public var categories: [CategoryConfig] = CategoryConfig.contractCategories
    /// In file order.
    public var sources: [SourceConfig] = []

    /// The built-in defaults (what the modes that read no feeds.yaml use); ConfigLoader sets what the file names.
    public init() {}

    public var activeSources: [SourceConfig] { sources.filter(\.impliedActive) }
}

/// Values applied to every source that does not override them.
public struct SourceDefaults: Sendable, Equatable {
    public var fetchIntervalHours: Int = 2
    /// The content cap (characters) for sources without their own `max_content_length`.
    public var maxContentLength: Int = FieldLimits.content
    public var languageDetection: Bool = true

    public static let absoluteMaxContentLength = FieldLimits.content
    public static let fetchIntervalRange = 1...168

    public init() {}
}

/// Bounds for the per-source scheduler (backoff never goes below/above these).
public struct ScheduleSettings: Sendable, Equatable {
    public var minIntervalMinutes: Int = 15
    public var maxIntervalHours: Int = 24
    /// A source whose pass failed on the database is due again after this long (twice this from
    /// its second failure in a row), instead of when its lease expires.
    public var databaseRetrySeconds: Int = 60

    public init() {}
}

/// Ingest-time enrichment of new rows (one page fetch each: og:image, readable body, language).
/// `--backfill` uses the same concurrency; `enabled: false` only turns off the ingest-time step.
public struct EnrichmentConfig: Sendable, Equatable {
    public var enabled: Bool = true
    /// Article pages fetched at once (the fetcher's per-host politeness still applies).
    public var concurrency: Int = 4
    /// Time one source's new rows may spend on enrichment; rows not reached are left to --backfill.
    public var perSourceBudgetSeconds: Int = 60

    public init() {}
}

/// Retention windows in days, keyed on `created_at` (data contract section 5); the store applies
/// the same value type.
public typealias RetentionSettings = RetentionWindows

/// A category as `feeds.yaml` gives it: the store's definition, one type for both.
public typealias CategoryConfig = CategoryDefinition

extension CategoryDefinition {
    /// The ten categories of the data contract, in display order. Used when the file has no
    /// `categories` section.
    public static let contractCategories: [CategoryConfig] = [
        ("world", "World"), ("technology", "Technology"), ("business", "Business"),
        ("sports", "Sports"), ("entertainment", "Entertainment"), ("science", "Science"),
        ("health", "Health"), ("politics", "Politics"), ("podcasts", "Podcasts"), ("videos", "Videos"),
    ].enumerated().map { CategoryConfig(slug: $1.0, name: $1.1, displayOrder: $0) }
}

/// What a source's items are; derived from its category (contract invariant 3).
public enum SourceKind: String, Sendable, Equatable, CaseIterable {
    case articles
    case podcast
    case video

    public init(categorySlug: String) {
        switch categorySlug {
        case "podcasts": self = .podcast
        case "videos": self = .video
        default: self = .articles
        }
    }
}

/// A source as `feeds.yaml` gives it: the store's definition, one type for both.
public typealias SourceConfig = SourceDefinition

extension SourceDefinition {
    /// What the file implies: its explicit `active:`, else active.
    public var impliedActive: Bool { isActive ?? true }

    public var kind: SourceKind { SourceKind(categorySlug: categorySlug) }
}
