import FoundationEssentials

/// An article as the pipeline found it (feed item, possibly enriched), before the store applies
/// the contract's invariants. Every field is untrusted.
public struct ArticleCandidate: Sendable, Equatable {
    public var title: String
    /// The item's link as given (relative links already resolved).
    public var link: String
    public var summary: String?
    public var content: String?
    public var author: String?
    public var imageURL: String?
    public var thumbnailURL: String?
    public var publishedAt: Date?
    public var updatedAt: Date?
    public var mediaType: String?
    public var mediaURL: String?
    public var mediaDurationSeconds: Int?
    public var mediaMimeType: String?
    /// Detected language, when enrichment found one; else the source's.
    public var language: String?

    public init(title: String, link: String, summary: String? = nil, content: String? = nil,
                author: String? = nil, imageURL: String? = nil, thumbnailURL: String? = nil,
                publishedAt: Date? = nil, updatedAt: Date? = nil, mediaType: String? = nil,
                mediaURL: String? = nil, mediaDurationSeconds: Int? = nil, mediaMimeType: String? = nil,
                language: String? = nil) {
        self.title = title
        self.link = link
        self.summary = summary
        self.content = content
        self.author = author
        self.imageURL = imageURL
        self.thumbnailURL = thumbnailURL
        self.publishedAt = publishedAt
        self.updatedAt = updatedAt
        self.mediaType = mediaType
        self.mediaURL = mediaURL
        self.mediaDurationSeconds = mediaDurationSeconds
        self.mediaMimeType = mediaMimeType
        self.language = language
    }
}
