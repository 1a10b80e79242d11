/// What `--backfill` fills, and what a page fetch can fail to find (its attempts are counted).
public enum BackfillKind: String, Sendable, CaseIterable, Hashable {
    case image, content, language
}

/// What enrichment found for one row; nil fields are left as they are.
public struct EnrichmentUpdate: Sendable, Equatable {
    public var id: String
    public var imageURL: String?
    public var content: String?
    /// A detected language (bare ISO 639-1); marks the row as detected.
    public var language: String?

    public init(id: String, imageURL: String? = nil, content: String? = nil, language: String? = nil) {
        self.id = id
        self.imageURL = imageURL
        self.content = content
        self.language = language
    }

    /// The kinds this update fills (nothing to write when empty).
    public var filled: Set<BackfillKind> {
        var kinds: Set<BackfillKind> = []
        if imageURL != nil { kinds.insert(.image) }
        if content != nil { kinds.insert(.content) }
        if language != nil { kinds.insert(.language) }
        return kinds
    }
}
