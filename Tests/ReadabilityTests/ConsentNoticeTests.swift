import Testing
import HTMLDocument
@testable import Readability

/// A consent manager's page served instead of the article: no article, so the row keeps its
/// feed text. News copy about consent rules, and articles on pages with a cookie banner, stay.
struct ConsentNoticeTests {
    static let url = "https://www.valleyherald.example/news/quays"

    static let english = """
        <h1>We value your privacy</h1>
        <p>We and our 142 partners store and access information on your device, such as cookies and unique identifiers, and process personal data such as browsing data, to personalise content and adverts and to measure their performance.</p>
        <p>With your permission we and our partners may use precise geolocation data. You may click to consent to our processing as described above, or access more detailed information and change your preferences before consenting or refusing.</p>
        <p>Some processing of your personal data may not require your consent, but you have a right to object to it. You can change your preferences at any time by returning to this site.</p>
        <div><button>Accept all</button><button>Reject all</button></div>
        """
    static let spanish = """
        <h1>Valoramos tu privacidad</h1>
        <p>Nosotros y nuestros socios almacenamos o accedemos a información en un dispositivo, como cookies, y tratamos datos personales, como identificadores únicos, para mostrar anuncios y contenido personalizados y medir su rendimiento.</p>
        <p>Puedes hacer clic para dar tu consentimiento al tratamiento descrito, o acceder a información más detallada y cambiar tus preferencias antes de consentir o negarte.</p>
        <div><button>Aceptar todo</button><button>Rechazar</button></div>
        """
    static let portuguese = """
        <h1>A sua privacidade é importante para nós</h1>
        <p>Nós e os nossos parceiros armazenamos e acedemos a informações num dispositivo, como cookies, e tratamos dados pessoais para anúncios e conteúdos personalizados e para medir o seu desempenho.</p>
        <p>Pode clicar para dar o seu consentimento ao tratamento descrito acima, ou aceder a informações mais detalhadas e alterar as suas preferências. Com o seu consentimento, seus dados pessoais serão tratados para estes fins.</p>
        <div><button>Aceitar</button><button>Rejeitar</button></div>
        """

    @Test(arguments: [english, spanish, portuguese])
    func aConsentWallIsNoArticle(_ body: String) throws {
        let html = "<html><head><title>Privacy</title></head><body><div>\(body)</div></body></html>"
        #expect(try extract(html, url: Self.url) == nil)
        #expect(try extract(html, url: Self.url, options: .init(enhancedCleaning: false)) != nil, "the faithful port keeps it")
    }

    /// Reporting in the third person, quoting a banner once.
    @Test func newsAboutConsentRulesStays() throws {
        let article = """
            <article><h1>Regulator fines retailer over cookie banners</h1>
            <p>The data regulator fined a national retailer on Tuesday for setting advertising cookies before shoppers had given their consent, the first such penalty under the new rules.</p>
            <p>Its banner read "We and our partners use cookies", but the tracking began as soon as the page loaded, investigators found. The retailer said it would appeal.</p>
            <p>Consumer groups said the decision would force other companies to check their consent tools, and that shoppers should be able to refuse tracking as easily as they accept it.</p></article>
            """
        let text = try #require(try extract(page(title: "Regulator fines retailer", body: article), url: Self.url)).text
        #expect(text.contains("first such penalty"))
    }

    /// An article whose page carries a cookie banner: the article is extracted, not the banner.
    @Test func anArticleWithACookieBannerStays() throws {
        let body = "<article>\(fillerParagraphs(4))</article><div>\(Self.english)</div>"
        let text = try #require(try extract(page(title: "A plain test page about nothing much", body: body), url: Self.url)).text
        #expect(text.contains(filler[0]) && text.contains(filler[3]))
        #expect(!text.contains("partners") && !text.contains("privacy"), "the banner's blocks and heading go")
    }

    @Test func phrasesCountOnceAndDigitsAreDropped() {
        #expect(!Extractor.isConsentNotice("We and our 142 partners use cookies."), "one phrase")
        #expect(Extractor.isConsentNotice("We and our 142 partners use cookies with your consent."))
        #expect(!Extractor.isConsentNotice("Our partners use your consent."), "no cookie")
        let long = String(repeating: "The council met again on Tuesday. ", count: 80)
        #expect(!Extractor.isConsentNotice(long + "Our partners set cookies with your consent."), "too long for a notice")
    }
}

extension ConsentNoticeTests {
    /// A list nested 240 deep with the notice at its bottom: reading each level's text would read
    /// the list once per level (about 29,000 steps). Only the innermost blocks are read.
    @Test func aDeepListIsReadOnce() throws {
        let notice = "Our partners set cookies on your device with your consent, and you can change your preferences."
        let list = String(repeating: "<ul><li>", count: 240) + notice + String(repeating: "</li></ul>", count: 240)
        let html = "<html><head><title>Privacy</title></head><body><div>\(list)</div></body></html>"
        let extractor = Extractor(document: try HTMLDocument.parse(html: html), url: Self.url, options: .init())
        let body = try #require(extractor.body)
        let elements = body.elements(["ul", "li", "div"]).count
        #expect(elements >= 480)
        let before = extractor.arena.meter.visits
        let serializer = ArticleSerializer(base: Self.url, options: .init())
        #expect(extractor.withoutConsentNotice(body, serializer: serializer) == nil, "nothing but the notice")
        #expect(extractor.arena.meter.visits - before <= 4 * elements)
    }
}
