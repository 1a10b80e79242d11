/// Why a page could not be turned into an `HTMLDocument`. Every case reads as one line.
public enum HTMLDocumentError: Error, Sendable, Equatable, CustomStringConvertible {
    case tooLarge(bytes: Int, limit: Int)
    case tooManyElements(limit: Int)
    case nestingTooDeep(limit: Int)
    case parserFailed
    case tooManyAttributes(limit: Int)
    case tooManyAttributesInTotal(limit: Int)
    case tooManyReopenedElements(limit: Int)
    case parserMemoryExceeded(limitBytes: Int)
    case parserCPUExceeded(seconds: Double)

    /// The page was refused for its size or shape (a hostile or absurd page), not a parser fault.
    public var isRefusal: Bool { self != .parserFailed }

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
        case let .tooManyAttributes(limit):
            return "page has an element with more than \(limit) attributes"
        case let .tooManyAttributesInTotal(limit):
            return "page has more than \(limit) attributes"
        case let .tooManyReopenedElements(limit):
            return "page's unclosed formatting elements would be re-opened more than \(limit) times"
        case let .parserMemoryExceeded(limitBytes):
            return "parsing the page needed more than \(limitBytes / 1_048_576) MB"
        case let .parserCPUExceeded(seconds):
            return "parsing the page took more than \(seconds) s of CPU"
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

    /// Attributes on one element: gumbo's duplicate check is quadratic in them.
    public var maxAttributesPerElement: Int
    public var maxAttributes: Int
    /// Elements the parser would re-open for unclosed formatting elements (`<p><b id=1>x<p>...`
    /// re-opens every earlier `<b>` in each new paragraph: quadratic elements and memory).
    public var maxReopenedElements: Int
    /// Live bytes gumbo may hold and CPU seconds it may use; past either the parse is abandoned.
    public var maxParserMemory: Int
    public var parserCPUSeconds: Double
    /// Leaves the text of `<style>` and of `<script>` elements out of the tree (the elements stay,
    /// empty), so gumbo never reads it; scripts whose attributes mention JSON (JSON-LD) keep
    /// theirs. For callers that read neither, such as article extraction: on a news page that
    /// text is most of the bytes. Off by default. See `InertText` for when text stays anyway.
    /// It also hands gumbo the page's other text as placeholders, put back in the same tree
    /// (`TextRuns`): a speed-up only, in the option because it rests on the same pre-scan.
    public var leavesOutScriptAndStyleText = false

    public init(maxBytes: Int = 5_000_000, maxElements: Int = 100_000, maxDepth: Int = 512,
                maxAttributesPerElement: Int = 512, maxAttributes: Int = 200_000,
                maxReopenedElements: Int = 250_000, maxParserMemory: Int = 256 * 1_048_576,
                parserCPUSeconds: Double = 1.0) {
        self.maxBytes = maxBytes
        self.maxElements = maxElements
        self.maxDepth = maxDepth
        self.maxAttributesPerElement = maxAttributesPerElement
        self.maxAttributes = maxAttributes
        self.maxReopenedElements = maxReopenedElements
        self.maxParserMemory = maxParserMemory
        self.parserCPUSeconds = parserCPUSeconds
    }
}
