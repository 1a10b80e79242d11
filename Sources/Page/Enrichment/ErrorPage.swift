import HTMLDocument
import PulseModel
import TextSupport

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
        if let articleText, hasMoreCharacters(than: maximumTextLength, articleText) { return false }
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

    /// `text.count > limit`, without counting a long article's Characters to the end, and for
    /// most text without stepping Character by Character at all (that cost ~28k instructions a
    /// page): an ASCII byte right after another ASCII byte always starts a new Character (only CR
    /// LF joins), so counting those bytes is a lower bound; the exact walk runs when it is not
    /// enough.
    static func hasMoreCharacters(than limit: Int, _ text: String) -> Bool {
        guard text.utf8.count > limit else { return false }
        let sure = TextScan.withBytes(text) { bytes -> Bool in
            var starts = 0
            var previous: UInt8 = 0x80  // the first Character is not counted: a lower bound still
            for byte in bytes {
                if byte < 0x80, previous < 0x80, !(previous == 0x0D && byte == 0x0A) {
                    starts += 1
                    if starts > limit { return true }
                }
                previous = byte
            }
            return false
        }
        if sure { return true }
        guard let end = text.index(text.startIndex, offsetBy: limit, limitedBy: text.endIndex) else { return false }
        return end != text.endIndex
    }
}
