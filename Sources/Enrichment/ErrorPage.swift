import HTMLDocument
import PulseModel

/// Soft 404s: an article that was pulled or moved answers 200 with the site's "page not found"
/// page. Its apology was stored as the article's text and its default share picture (the
/// site's logo) as the article's image. A page whose title or main heading says it is not found,
/// with no more text than an apology, is no article page: nothing of it is stored.
enum ErrorPage {
    /// Lower-case phrases of not-found pages, in the app's languages (en, es, pt). "not found"
    /// alone is not one: a headline may say a missing boat was not found.
    static let phrases = [
        "page not found", "404 not found", "error 404", "404 error", "page cannot be found", "page can't be found",
        "page can’t be found", "can't find that page", "can’t find that page", "cannot find that page",
        "couldn't find that page", "couldn’t find that page", "could not find that page", "page doesn't exist",
        "page doesn’t exist", "page does not exist", "page no longer exists", "page is no longer available",
        "página no encontrada", "no se encontró la página", "no encontramos la página", "la página no existe",
        "página no disponible", "página não encontrada", "não encontramos a página", "a página não existe",
        "página indisponível", "erro 404",
    ]
    /// An apology and a pointer to the search fit in this; an article brief does not.
    static let maximumTextLength = 600
    static let headingLength = 200

    static func isErrorPage(_ document: HTMLDocument, articleText: String?) -> Bool {
        // More than `maximumTextLength` Characters, without counting a long article's to the end.
        if let articleText, articleText.utf8.count > maximumTextLength,
           let limit = articleText.index(articleText.startIndex, offsetBy: maximumTextLength, limitedBy: articleText.endIndex),
           limit != articleText.endIndex { return false }
        var headings = document.elements(named: "h1").prefix(3).map { document.textContent(of: $0) }
        if let title = document.title { headings.append(title) }
        return headings.contains { heading in
            // A title is a line: a hostile heading holding the whole page is read no further.
            // Literal byte search (TextScan): Foundation's contains bridged every phrase to NSString,
            // 5% of a short page's extraction.
            let lowered = heading.prefix(headingLength).lowercased()
            return phrases.contains { TextScan.contains(lowered, $0) }
        }
    }
}
