/// Field caps of the data contract (section 3, invariant 5), in characters after sanitising.
public enum FieldLimits {
    public static let title = 500
    public static let summary = 4096
    public static let content = 200_000
    public static let author = 200
    public static let url = 2048
    public static let mediaMimeType = 50
    /// Longest media duration we store; longer values are feed errors (24 h).
    public static let mediaDurationSeconds = 86_400
    /// A feed item's guid (it dedupes within the feed) and language tag, as read.
    public static let guid = 2048
    public static let language = 35
}
