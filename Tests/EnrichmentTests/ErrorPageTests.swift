import Enrichment
import Testing

/// Soft 404s ("page not found" answered with 200): neither the apology nor the site's default
/// share picture may reach the article's row. No database needed.
struct ErrorPageTests {
    static let pageURL = "https://www.coastcourier.example/news/gone"
    static let rail = (1...4).map { "<li><a href='/news/\($0)'><h3>Another story from the harbour, number \($0)</h3></a></li>" }.joined()

    static func page(title: String, heading: String, message: String) -> String {
        """
        <html><head><title>\(title)</title><meta property="og:image" content="https://img.coastcourier.example/brand/share.png"></head>
        <body><nav><a href="/">Home</a></nav><main><h1>\(heading)</h1><p>\(message)</p><h2>Latest</h2><ul>\(rail)</ul></main>
        <footer><p>The Coast Courier is published by Coast Media Limited.</p></footer></body></html>
        """
    }

    static func analyze(_ html: String) throws -> PageAnalysis {
        try PageAnalysis.analyze(page: Array(html.utf8), contentType: "text/html; charset=utf-8", pageURL: pageURL)
    }

    @Test(arguments: [
        ("Page not found | The Coast Courier", "Sorry, we can’t find that page",
         "The page you were looking for may have been moved or deleted. Try searching for it, or start again from our front page."),
        ("Página no encontrada - El Diario", "Lo sentimos", "La página que buscas no existe o ha sido eliminada. Vuelve a la portada."),
        ("Erro 404 | O Jornal", "Página não encontrada", "A página que procura não existe ou foi removida. Volte à página inicial."),
    ])
    func aNotFoundPageYieldsNothing(_ title: String, _ heading: String, _ message: String) throws {
        let analysis = try Self.analyze(Self.page(title: title, heading: heading, message: message))
        #expect(analysis.article == nil)
        #expect(analysis.imageURL == nil, "the site's default share picture is not the article's")
    }

    /// A short brief whose headline says something was not found is news.
    @Test func aBriefAboutSomethingNotFoundStays() throws {
        let brief = "Coastguard teams searched the bay for a second day on Sunday for a fishing boat reported missing on Friday evening. "
            + "The boat, with two crew on board, was not found, and the search will resume at first light, the coastguard said. "
            + "Relatives of the crew have gathered at the harbour, where volunteers have opened the lifeboat station to them."
        let analysis = try Self.analyze(Self.page(title: "Missing fishing boat not found after two-day search",
                                                  heading: "Missing fishing boat not found after two-day search", message: brief))
        #expect(analysis.article?.text.contains("resume at first light") == true)
        #expect(analysis.imageURL == "https://img.coastcourier.example/brand/share.png")
    }

    /// A long article about error pages is an article.
    @Test func aLongArticleTitledLikeAnErrorPageStays() throws {
        let paragraph = "Web designers have turned the humble error page into a small art form, with jokes, games and maps guiding lost readers back to the front page of the site. "
        let analysis = try Self.analyze(Self.page(title: "Page not found: the art of the error page", heading: "Page not found: the art of the error page",
                                                  message: String(repeating: paragraph, count: 6)))
        #expect(analysis.article != nil)
    }
}
