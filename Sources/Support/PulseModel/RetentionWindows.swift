/// Retention windows of the data contract (section 5), in days, keyed on ingest time.
public struct RetentionWindows: Sendable, Equatable {
    public var articlesDays: Int = 7
    public var imageDays: Int = 3
    public var contentDays: Int = 2
    public var fetchLogsDays: Int = 7

    public init() {}
}
