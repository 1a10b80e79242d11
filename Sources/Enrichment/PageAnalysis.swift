import HTMLDocument
import LanguageTagger
import OpenGraph
import Readability

/// Everything one article page yields: one parse serves og:image, the readable body, metadata
/// and the language (so ingest, `--backfill` and `--dump-article` share one code path).
public struct PageAnalysis: Sendable, Equatable {
    public var imageURL: String?
    public var article: ReadableArticle?
    public var language: LanguageDecision?
    /// What the page declares about itself: the article's fields when Readability found one, else
    /// the meta tags and `<title>` (a headline-only page still has a title, a description and a date).
    public var metadata: PageMetadata

    /// Characters of paragraph text used for language detection on a page with no article.
    static let fallbackTextLimit = 4_096

    /// `title`/`summary` are the feed's (or stored) text, used with the body for language
    /// detection; `configuredLanguage` is the source's and is never passed to CLD2 as a hint.
    /// `pageURL` nil (a saved page with no known address): the page's canonical or og:url, else
    /// `https://localhost/`, is the base for links and for telling the site's own links apart.
    public static func analyze(page bytes: [UInt8], contentType: String?, pageURL: String?,
                               title: String?, summary: String?, configuredLanguage: String,
                               detectLanguage: Bool, maxTextLength: Int = 200_000,
                               includeHTML: Bool = false) throws -> PageAnalysis {
        var limits = HTMLParseLimits()
        limits.leavesOutScriptAndStyleText = true   // read by nothing below but JSON-LD, which stays
        let document = try HTMLDocument.parse(bytes, contentType: contentType, limits: limits)
        let pageURL = pageURL ?? OpenGraph.declaredURL(in: document) ?? "https://localhost/"
        let article = Readability.extract(from: document, url: pageURL,
                                          options: ReadabilityOptions(maxTextLength: maxTextLength, includeHTML: includeHTML))
        if ErrorPage.isErrorPage(document, articleText: article?.text) {
            // Nothing of a "page not found" page describes the article: not its apology, not its
            // share picture (the site's logo), not its language beyond what the feed said.
            let language = LanguageTagger.decide(title: title ?? "", summary: summary, body: nil,
                                                 configured: configuredLanguage, detectionEnabled: detectLanguage)
            return PageAnalysis(imageURL: nil, article: nil, language: language, metadata: PageMetadata(title: document.title))
        }
        var metadata: PageMetadata
        var bodyText = article?.text
        if let article {
            metadata = PageMetadata(title: article.title, byline: article.byline, excerpt: article.excerpt,
                                    siteName: article.siteName, publishedTime: article.publishedTime)
        } else {
            metadata = OpenGraph.metadata(in: document, pageURL: pageURL, includeImage: true)
            metadata.title = metadata.title ?? document.title
            bodyText = paragraphText(of: document)
        }
        let language = LanguageTagger.decide(
            title: title ?? metadata.title ?? "", summary: summary ?? metadata.excerpt, body: bodyText,
            configured: configuredLanguage, detectionEnabled: detectLanguage)
        // Both paths above already looked for the lead image (and parsed the JSON-LD once for it).
        return PageAnalysis(imageURL: article?.imageURL ?? metadata.imageURL, article: article,
                            language: language, metadata: metadata)
    }

    /// The text of the page's paragraphs and headings, for language detection only, when
    /// Readability kept nothing (its rules drop a lone paragraph that repeats the headline).
    static func paragraphText(of document: HTMLDocument) -> String {
        var text = ""
        for tag in ["h1", "h2", "p"] {
            for element in document.elements(named: tag) {
                let part = document.textContent(of: element).split(whereSeparator: \.isWhitespace).joined(separator: " ")
                guard !part.isEmpty else { continue }
                text += text.isEmpty ? part : "\n" + part
                if text.count >= fallbackTextLimit { return String(text.prefix(fallbackTextLimit)) }
            }
        }
        return text
    }
}
