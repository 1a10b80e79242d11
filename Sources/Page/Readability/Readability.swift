import PulseModel
import HTMLDocument
import OpenGraph
import TextSupport

/// What Readability found: metadata plus the article as sanitised HTML and plain text.
public struct ReadableArticle: Sendable, Equatable {
    public var title: String
    public var byline: String?
    public var excerpt: String?
    public var siteName: String?
    public var publishedTime: String?
    /// Allow-listed HTML: p, h2-h6, ul/ol/li, blockquote, pre/code, figure/img, a, em/strong.
    public var html: String
    /// Paragraphs separated by blank lines; control and bidi characters removed.
    public var text: String
    /// Characters in `text`; counted when asked (ingest never asks, and counting Characters walks
    /// the whole text).
    public var length: Int { text.count }
    /// The page's lead image (og:image and its kin, then JSON-LD `image`), found while the
    /// metadata was read so the page's JSON-LD is parsed once.
    public var imageURL: String?
}

public struct ReadabilityOptions: Sendable, Equatable {
    /// DEFAULT_N_TOP_CANDIDATES.
    public var nbTopCandidates: Int
    /// DEFAULT_CHAR_THRESHOLD: shorter results trigger the next, more lenient pass.
    public var charThreshold: Int
    /// Added to the link-density limits of `_cleanConditionally`.
    public var linkDensityModifier: Double
    /// Run the boilerplate steps added beyond Readability.js (newsletter/share/bio boxes,
    /// "read more" lines, captions out of the text). Off gives the faithful port.
    public var enhancedCleaning: Bool
    /// Cap on the characters of `text` (and the HTML is built from the same blocks).
    public var maxTextLength: Int
    /// Build `html` too. Off, `html` is empty and links and images are not resolved: ingest
    /// stores only the text.
    public var includeHTML: Bool

    public init(nbTopCandidates: Int = 5, charThreshold: Int = 500, linkDensityModifier: Double = 0,
                enhancedCleaning: Bool = true, maxTextLength: Int = 200_000, includeHTML: Bool = true) {
        self.nbTopCandidates = nbTopCandidates
        self.charThreshold = charThreshold
        self.linkDensityModifier = linkDensityModifier
        self.enhancedCleaning = enhancedCleaning
        self.maxTextLength = maxTextLength
        self.includeHTML = includeHTML
    }
}

public enum Readability {
    /// Extracts the main article; nil when nothing readable is found.
    public static func extract(from document: HTMLDocument, url: String,
                               options: ReadabilityOptions = .init()) -> ReadableArticle? {
        let extractor = Extractor(document: document, url: url, options: options)
        return extractor.parse()
    }
}

struct Flags: OptionSet {
    let rawValue: Int
    static let stripUnlikelys = Flags(rawValue: 0x1)
    static let weightClasses = Flags(rawValue: 0x2)
    static let cleanConditionally = Flags(rawValue: 0x4)
}

/// One run of the algorithm; the state Readability.js keeps on `this`.
final class Extractor {
    let document: HTMLDocument
    let url: String
    let options: ReadabilityOptions
    let arena = DOMArena()
    var root: DNode
    var flags: Flags = [.stripUnlikelys, .weightClasses, .cleanConditionally]
    var articleTitle = ""
    var articleByline: String?
    var metadata = PageMetadata()
    typealias Attempt = (content: DNode, textLength: Int, astray: Bool)
    var attempts: [Attempt] = []
    /// The longest pick of the attempts with class weights whose own class or id named it the
    /// article: its element (`sourceIndex`) and the text it gave (see `isAstrayRetry`).
    var namedArticle: (element: Int32, length: Int)?
    /// The element last read as a possible thread title (see `threadTitleCandidate`).
    var lastTitleHolder: DNode?
    /// Some element of the page is marked as a thread or its title (see `markThreadAfterTitle`).
    var hasThreadMarks = false
    /// Nodes the teaser-rail rule looked at before deciding (`isTeaser`); read by its worst-case test.
    var teaserNodesVisited = 0
    /// Nodes the reply-control search looked at (`markReplyControls`); read by its worst-case test.
    var replyControlNodesVisited = 0
    /// The `<article>` the page's title heading stood in, before that heading was removed as a
    /// repeat of the title (see `removeOtherStories`).
    var titleStory: DNode?
    /// Elements a grab chose that read as a site notice, dropped from the trees built after it
    /// (see `regrabWithoutNotice`).
    var noticeElements = Set<Int32>()
    /// Elements that are or hold the page's marked main content (see `holdsMainContent`); found
    /// when first asked.
    var mainContentHolders: Set<Int32>?
    /// The page's comparable host (see `isSiteLink`); nil when the URL has none.
    lazy var siteHost: String? = URLResolver.split(url).authority.map(Self.comparableHost)

    init(document: HTMLDocument, url: String, options: ReadabilityOptions) {
        self.document = document
        self.url = url
        self.options = options
        self.root = arena.build(from: document)
    }

    var documentElement: DNode? { root.children.first { $0.tag == "html" } }
    var body: DNode? { Self.bodyElement(of: root) }

    /// The `<body>` of a tree built from a parsed document (the page's, or a JSON-LD body's).
    static func bodyElement(of root: DNode) -> DNode? {
        root.children.first { $0.tag == "html" }?.children.first { $0.tag == "body" }
    }

    /// Builds the working tree and runs the document preparation steps; returns the body.
    func preparedBody() -> DNode? {
        root = arena.build(from: document)
        unwrapNoscriptImages()
        removeScripts()
        prepDocument()
        if options.enhancedCleaning, let body {
            removeBoilerplateBeforeGrab(body)
            removeNoticeElements(body)
        }
        return body
    }

    func parse() -> ReadableArticle? {
        unwrapNoscriptImages()
        removeScripts()
        prepDocument()
        let cleanedTitle = getArticleTitle()
        metadata = OpenGraph.metadata(in: document, pageURL: url, htmlTitle: cleanedTitle, includeImage: true)
        if metadata.title == nil || metadata.title?.isEmpty == true { metadata.title = cleanedTitle }
        articleTitle = metadata.title ?? ""
        let marked = options.enhancedCleaning ? findMarkedBody() : nil
        if options.enhancedCleaning, let body { removeBoilerplateBeforeGrab(body) }
        let grabbed = grabArticle()
        guard !arena.meter.exhausted else { return nil }
        if let grabbed {
            if options.enhancedCleaning { removeBoilerplateAfterGrab(grabbed) }
            simplifyNestedElements(grabbed)
            guard !arena.meter.exhausted else { return nil }
        }
        let serializer = ArticleSerializer(base: OpenGraph.baseURL(of: document, pageURL: url), options: options)
        var content = grabbed
        var output = grabbed.map(serializer.serialize)
        // Whether `content` is from the page's own tree (not JSON-LD's `articleBody`).
        var fromPage = true
        if options.enhancedCleaning, let structured = structuredBody(insteadOf: output?.text) {
            content = structured
            fromPage = false
            output = serializer.serialize(structured)
        }
        guard var content, var output, !output.text.isEmpty else { return nil }
        if options.enhancedCleaning, Self.isConsentNotice(output.text) {
            guard let kept = withoutConsentNotice(content, serializer: serializer) else { return nil }
            output = kept
        }
        // A site notice chosen as the body: chosen again without it, or no body at all.
        if options.enhancedCleaning, Self.isSiteNotice(output.text) {
            let regrabbed = content === grabbed ? regrabWithoutNotice(content) : nil
            guard let again = regrabbed ?? structuredBody(insteadOf: nil) else { return nil }
            fromPage = regrabbed != nil
            content = again
            output = serializer.serialize(again)
            guard !output.text.isEmpty else { return nil }
        }
        // The winner is another block than the one the publisher marked, and much shorter.
        if let marked, content === grabbed, let again = secondOpinion(over: output.text, content: content, marked: marked) {
            content = again
            output = serializer.serialize(again)
        }
        // The lead set above the body, when the body does not hold it (not for a JSON-LD body:
        // its nodes are not the page's).
        if options.enhancedCleaning, fromPage, let lead = standfirst(missingFrom: output.text, before: content) {
            let paragraph = arena.element("p")
            paragraph.appendChild(arena.make(.text, text: lead))
            content.insertBefore(paragraph, content.firstChild)
            output = serializer.serialize(content)
        }
        var excerpt = metadata.excerpt
        if excerpt == nil || excerpt?.isEmpty == true {
            excerpt = content.elements("p").first.map { TextScan.trimmingWhitespace($0.textContent) }
        }
        return ReadableArticle(
            title: TextCleaning.clean(articleTitle),
            byline: (metadata.byline ?? articleByline).map(TextCleaning.clean).flatMap { $0.isEmpty ? nil : $0 },
            excerpt: excerpt.map(TextCleaning.clean).flatMap { $0.isEmpty ? nil : $0 },
            siteName: metadata.siteName.map(TextCleaning.clean),
            publishedTime: metadata.publishedTime.map(TextCleaning.clean),
            html: output.html, text: output.text, imageURL: metadata.imageURL)
    }
}
