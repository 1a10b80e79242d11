import PulseConfig
import PulseModel
@testable import SourceImport
import Testing

@Suite("derived slugs")
struct SlugRuleTests {
    @Test(arguments: [
        ("BBC News - World", "bbc-news-world"), ("Ciência Hoje", "ciencia-hoje"), ("Ærø Øresund straße", "aero-oresund-strasse"),
        ("  --Hello,   World!!  ", "hello-world"), ("Œuvre №5", "oeuvre-5"), ("日本経済新聞", ""), ("C++ & Go", "c-go"),
        ("Señor Café", "senor-cafe"), ("e\u{301}cole", "ecole"),
    ])
    func namesBecomeSlugs(name: String, slug: String) {
        #expect(SlugRule.slugify(name) == slug)
    }

    @Test func aNameWithoutLatinLettersGivesTheHost() {
        #expect(SlugRule.base(name: "日本経済新聞", feedURL: "https://www.nikkei.example.co.jp:8443/rss?x=1") == "nikkei-example-co-jp")
        #expect(SlugRule.base(name: nil, feedURL: "https://user@Feeds.Example.com/") == "feeds-example-com")
        #expect(SlugRule.base(name: "???", feedURL: "not a url") == "source")
    }

    @Test func longNamesAreCutAtAWord() {
        let slug = SlugRule.slugify(String(repeating: "word ", count: 40))
        #expect(slug.count <= 100 && slug.hasSuffix("word") && !slug.contains("--"))
        var taken = SlugRule.Taken([slug])
        let numbered = taken.unused(slug)
        #expect(numbered.count <= 100 && numbered.hasSuffix("-2"))
    }

    @Test func takenSlugsGetANumber() {
        var taken = SlugRule.Taken(["news", "news-2", "other"])
        #expect(taken.unused("news") == "news-3")
        var none = SlugRule.Taken([String]())
        #expect(none.unused("news") == "news")
    }

    @Test func derivedSlugsAvoidTheFileAndTheDatabaseAndReuseAStoredFeed() throws {
        let stored = [
            SourceDefinition(slug: "news", name: "News", feedURL: "https://other.example/rss", websiteURL: nil,
                             categorySlug: "world", language: "en", fetchIntervalHours: 2, maxContentLength: nil,
                             isActive: true),
            SourceDefinition(slug: "kept-slug", name: "Kept", feedURL: "https://kept.example/rss", websiteURL: nil,
                             categorySlug: "world", language: "en", fetchIntervalHours: 2, maxContentLength: nil,
                             isActive: true),
        ]
        let text = """
            name\tfeed_url\tslug
            News\thttps://a.example/rss
            News\thttps://b.example/rss
            A renamed feed\thttps://kept.example/rss
            Explicit\thttps://c.example/rss\tnews-3
            News\thttps://d.example/rss
            """
        let read = try sources(text, as: .tsv, settings: settings(stored: stored, category: "world", language: "en"))
        #expect(read.map(\.slug) == ["news-2", "news-4", "kept-slug", "news-3", "news-5"])
    }

    @Test(arguments: [("Technology", "technology"), ("technology", "technology"), ("TECHNOLOGY", "technology"),
                      ("Tech", nil), ("Podcasts ", "podcasts"), ("World News", nil)])
    func foldersNameCategoriesBySlugNameOrSlugOfTheName(text: String, category: String?) {
        #expect(SlugRule.category(named: text, in: CategoryConfig.contractCategories) == category)
    }
}
