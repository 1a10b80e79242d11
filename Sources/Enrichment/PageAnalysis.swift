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

    /// `title`/`summary` are the feed's (or stored) text, used with the body for language
    /// detection; `configuredLanguage` is the source's and is never passed to CLD2 as a hint.
    /// `pageURL` nil (a saved page with no known address): the page's canonical or og:url, else
    /// `https://localhost/`, is the base for links and for telling the site's own links apart.
    public static func analyze(page bytes: [UInt8], contentType: String?, pageURL: String?,
                               title: String?, summary: String?, configuredLanguage: String,
                               detectLanguage: Bool, maxTextLength: Int = 200_000,
                               includeHTML: Bool = false) throws -> PageAnalysis {
        let document = try HTMLDocument.parse(bytes, contentType: contentType)
        let pageURL = pageURL ?? OpenGraph.declaredURL(in: document) ?? "https://localhost/"
        let article = Readability.extract(from: document, url: pageURL,
                                          options: ReadabilityOptions(maxTextLength: maxTextLength, includeHTML: includeHTML))
        let language = LanguageTagger.decide(
            title: title ?? article?.title ?? "", summary: summary ?? article?.excerpt, body: article?.text,
            configured: configuredLanguage, detectionEnabled: detectLanguage)
        return PageAnalysis(imageURL: OpenGraph.imageURL(in: document, pageURL: pageURL), article: article,
                            language: language)
    }
}
