/// Retention windows of the data contract (section 5), in days, keyed on ingest time.
public struct RetentionWindows: Sendable, Equatable {
    public var articlesDays: Int
    public var imageDays: Int
    public var contentDays: Int
    public var fetchLogsDays: Int

    public init(articlesDays: Int = 7, imageDays: Int = 3, contentDays: Int = 2, fetchLogsDays: Int = 7) {
        self.articlesDays = articlesDays
        self.imageDays = imageDays
        self.contentDays = contentDays
        self.fetchLogsDays = fetchLogsDays
    }
}
