/// Why a page could not be turned into an `HTMLDocument`. Every case reads as one line.
public enum HTMLDocumentError: Error, Sendable, Equatable, CustomStringConvertible {
    case tooLarge(bytes: Int, limit: Int)
    case tooManyElements(limit: Int)
    case nestingTooDeep(limit: Int)
    case parserFailed

    public var description: String {
        switch self {
        case let .tooLarge(bytes, limit):
            return "page is \(bytes) bytes, over the \(limit)-byte limit"
        case let .tooManyElements(limit):
            return "page has more than \(limit) elements"
        case let .nestingTooDeep(limit):
            return "page nests elements deeper than the \(limit)-level limit allows"
        case .parserFailed:
            return "the HTML parser returned no document"
        }
    }
}

/// Caps applied before and while parsing. Defaults suit news pages; hostile pages hit them.
public struct HTMLParseLimits: Sendable, Equatable {
    /// Input bytes accepted (default 5 MB).
    public var maxBytes: Int
    /// Elements accepted; past it parsing fails fast.
    public var maxElements: Int
    /// Element depth kept; deeper content is cut from the tree. Markup nesting more than
    /// `4 * maxDepth` by a cheap pre-scan is refused before gumbo runs, because gumbo's
    /// scope checks make deep nesting quadratic (200 000 nested divs take minutes).
    public var maxDepth: Int

    public init(maxBytes: Int = 5_000_000, maxElements: Int = 100_000, maxDepth: Int = 512) {
        self.maxBytes = maxBytes
        self.maxElements = maxElements
        self.maxDepth = maxDepth
    }
}
