import HTMLDocument
import LanguageTagger
import OpenGraph
import Readability

/// Everything one article page yields: one parse serves og:image, the readable body, metadata
/// and the text its language can be told from (so ingest, `--backfill` and `--dump-article`
/// share one code path). The row's language is decided by the caller, once, with
/// `LanguageTagger.decideRow` (`EnrichmentMerge`), from `languageText` and the row's text.
public struct PageAnalysis: Sendable, Equatable {
    public var imageURL: String?
    public var article: ReadableArticle?
    public var languageText: PageLanguageText
    /// What the page declares about itself: the article's fields when Readability found one, else
    /// the meta tags and `<title>` (a headline-only page still has a title, a description and a date).
    public var metadata: PageMetadata

    /// Characters of paragraph text used for language detection on a page with no article.
    static let fallbackTextLimit = 4_096

    /// `pageURL` nil (a saved page with no known address): the page's canonical or og:url, else
    /// `https://localhost/`, is the base for links and for telling the site's own links apart.
    public static func analyze(page bytes: [UInt8], contentType: String?, pageURL: String?,
                               maxTextLength: Int = 200_000,
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
            return PageAnalysis(imageURL: nil, article: nil, languageText: PageLanguageText(),
                                metadata: PageMetadata(title: document.title))
        }
        var metadata: PageMetadata
        var bodyText = article?.text
        if let article {
            metadata = PageMetadata(title: article.title)
            (metadata.byline, metadata.excerpt) = (article.byline, article.excerpt)
            (metadata.siteName, metadata.publishedTime) = (article.siteName, article.publishedTime)
        } else {
            metadata = OpenGraph.metadata(in: document, pageURL: pageURL, includeImage: true)
            metadata.title = metadata.title ?? document.title
            bodyText = paragraphText(of: document)
        }
        // Both paths above already looked for the lead image (and parsed the JSON-LD once for it).
        return PageAnalysis(imageURL: article?.imageURL ?? metadata.imageURL, article: article,
                            languageText: PageLanguageText(title: metadata.title, summary: metadata.excerpt, body: bodyText),
                            metadata: metadata)
    }

    /// The language of the page on its own, for `--dump-article` (which has no row): the same
    /// decision a row with no text of its own gets.
    public func language(configured: String, detectionEnabled: Bool) -> LanguageDecision {
        LanguageTagger.decideRow(title: nil, summary: nil, body: nil, page: languageText,
                                 configured: configured, detectionEnabled: detectionEnabled)
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
