/// What CLD2 said about a piece of text, with its code already reduced to ISO 639-1.
public struct LanguageDetection: Sendable, Equatable {
    /// Bare lowercase ISO 639-1 code ("pt", "zh"), or nil when CLD2 abstained or answered a
    /// language that has no two-letter code (Cebuano "ceb", Hawaiian "haw", ...).
    public var code: String?
    /// CLD2's own code before mapping ("zh-Hant", "iw", "un"), for logs and diagnostics.
    public var rawCode: String
    /// Share of the scored text in `code`'s language, 0...100.
    public var percent: Int
    /// Whether the answer is trusted: CLD2's own is_reliable (without its best-effort flag).
    public var reliable: Bool
    /// Letter bytes CLD2 actually scored (spaces, digits and punctuation are not counted).
    public var textBytes: Int
}

/// The language an article is stored with, and why.
public struct LanguageDecision: Sendable, Equatable {
    public enum FallbackReason: String, Sendable, Equatable {
        /// The source sets `language_detection: off`.
        case disabled
        /// Too little text, or CLD2 itself was not sure.
        case unreliable
        /// CLD2 had no answer ("un", or an unknown language in some script).
        case abstained
        /// CLD2 named a language without an ISO 639-1 code.
        case notTwoLetter
    }

    public enum Source: Sendable, Equatable {
        case detected
        case configured(reason: FallbackReason)
    }

    /// Always matches `^[a-z]{2}$`: the value for `articles.language`.
    public var code: String
    public var source: Source
    /// nil only when detection is disabled for the source.
    public var detected: LanguageDetection?
    /// Detection was reliable and names a language other than the configured one.
    public var disagrees: Bool
    /// The answer came from the page's text (`decideRow`).
    public var fromPage = false

    public init(code: String, source: Source, detected: LanguageDetection?, disagrees: Bool) {
        self.code = code
        self.source = source
        self.detected = detected
        self.disagrees = disagrees
    }
}

/// What an article's page offers for its language (`LanguageTagger.decideRow`): its readable body
/// (or paragraph text), and its title and excerpt for a row that has none. An error page offers
/// no text at all (its apology says nothing about the article).
public struct PageLanguageText: Sendable, Equatable {
    public var title: String?
    public var summary: String?
    public var body: String?

    public init(title: String? = nil, summary: String? = nil, body: String? = nil) {
        self.title = title
        self.summary = summary
        self.body = body
    }
}
