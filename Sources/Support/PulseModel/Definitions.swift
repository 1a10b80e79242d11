/// A category as configured (`feeds.yaml`), synchronised into `categories` by slug.
public struct CategoryDefinition: Sendable, Equatable {
    public var slug: String
    public var name: String
    public var displayOrder: Int

    public init(slug: String, name: String, displayOrder: Int) {
        self.slug = slug
        self.name = name
        self.displayOrder = displayOrder
    }
}

/// A source as configured, synchronised into `sources` by slug.
public struct SourceDefinition: Sendable, Equatable {
    public var slug: String
    public var name: String
    public var feedURL: String
    public var websiteURL: String?
    public var categorySlug: String
    public var language: String
    public var fetchIntervalHours: Int
    public var maxContentLength: Int?
    /// The file's explicit `active:`; nil leaves an existing row's `is_active` to the database
    /// (operators and upstream migrations deactivate dead sources there) and inserts new ones active.
    public var isActive: Bool?
    /// false: the configured language is stored as it is, never detected (`language_detection: off`).
    public var languageDetection: Bool

    public init(slug: String, name: String, feedURL: String, websiteURL: String? = nil, categorySlug: String,
                language: String, fetchIntervalHours: Int = 2, maxContentLength: Int? = nil, isActive: Bool? = nil,
                languageDetection: Bool = true) {
        self.slug = slug
        self.name = name
        self.feedURL = feedURL
        self.websiteURL = websiteURL
        self.categorySlug = categorySlug
        self.language = language
        self.fetchIntervalHours = fetchIntervalHours
        self.maxContentLength = maxContentLength
        self.isActive = isActive
        self.languageDetection = languageDetection
    }
}

/// `articles.media_type`: the app knows these two values only.
public enum MediaType: String, Sendable, Equatable, CaseIterable {
    case podcast
    case video
}

/// Whether the language of a source's items is detected (CLD2) or pinned to its configured one:
/// the one place this is decided, for ingest and `--backfill` alike.
public enum LanguageDetectionRule {
    /// Off when the source's row says `language_detection` false (`sourceSetting`) or its slug is in
    /// `off`: the config's `language_detection: off` sources (a config newer than the last sync),
    /// and for `--backfill`, whose rows carry no source setting, the database's too.
    public static func isOn(slug: String?, sourceSetting: Bool = true, off: Set<String>) -> Bool {
        sourceSetting && !off.contains(slug ?? "")
    }
}
