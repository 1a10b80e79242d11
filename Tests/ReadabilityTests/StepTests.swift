import TextSupport
import Foundation
import Testing
import HTMLDocument
import PulseModel
@testable import Readability

/// Small pages that each isolate one Readability.js step.
struct StepTests {
    let faithful = ReadabilityOptions(enhancedCleaning: false)

    @Test func unlikelyCandidatesAreRemoved() throws {
        let html = page(body: "<div class='sidebar'><p>\(filler[0]) Sidebar marker text.</p></div><div class='story'>\(fillerParagraphs())</div>")
        let article = try #require(try extract(html, options: faithful))
        #expect(!article.text.contains("Sidebar marker"))
        #expect(article.text.contains(filler[3]))
    }

    @Test func okMaybeItsACandidateKeepsArticleColumn() throws {
        let html = page(body: "<div class='sidebar main-column'>\(fillerParagraphs())</div>")
        let article = try #require(try extract(html, options: faithful))
        #expect(article.text.contains(filler[0]))
    }

    @Test func scoringPrefersCommaRichLongParagraphs() throws {
        let weak = (0..<2).map { "<p>Short line number \($0) without much in it at all.</p>" }.joined()
        let html = page(body: "<div id='a'>\(weak)</div><div id='b'>\(fillerParagraphs())</div>")
        let article = try #require(try extract(html, options: faithful))
        #expect(article.text.contains(filler[2]))
        #expect(!article.text.contains("Short line number"))
    }

    @Test func classWeightsDecideBetweenEqualContainers() throws {
        let html = page(body: "<div class='promo'>\(fillerParagraphs())</div><div class='article-body'>\((0..<4).map { "<p>\(filler[($0 + 1) % 4]) Body \($0).</p>" }.joined())</div>")
        let article = try #require(try extract(html, options: faithful))
        #expect(article.text.contains("Body 0."))
        #expect(!article.text.hasPrefix(filler[0]))
    }

    @Test func siblingParagraphsAreMerged() throws {
        let sibling = "This separate paragraph sits next to the main container and is long enough to be merged in, with no links."
        let html = page(body: "<div><div class='story'>\(fillerParagraphs())</div><p>\(sibling)</p><p><a href='/x'>A link-only sibling line that should stay out of the article text here</a></p></div>")
        let article = try #require(try extract(html, options: faithful))
        #expect(article.text.contains(sibling))
        #expect(!article.text.contains("link-only sibling"))
    }

    @Test func conditionalCleaningDropsLinkyDivKeepsDataTable() throws {
        let links = (0..<8).map { "<a href='/l\($0)'>Another story headline \($0)</a>" }.joined(separator: " ")
        let table = "<table><thead><tr><th>Year</th><th>Riders</th></tr></thead><tr><td>2022</td><td>1,200</td></tr><tr><td>2023</td><td>1,450</td></tr></table>"
        let html = page(body: "<div class='story'>\(fillerParagraphs())<div>\(links)</div>\(table)</div>")
        let article = try #require(try extract(html, options: faithful))
        #expect(!article.text.contains("Another story headline"))
        #expect(article.text.contains("1,450"))
    }

    @Test func retryPassRelaxesUnlikelyStripping() throws {
        // The only content sits in a container named like a comment section.
        let html = page(body: "<div class='comment-thread'>\(fillerParagraphs())</div>")
        let article = try #require(try extract(html, options: faithful))
        #expect(article.text.contains(filler[1]))
    }

    @Test func shortPageReturnsLongestAttempt() throws {
        let html = page(body: "<div><p>Just one modest paragraph, shorter than the threshold, but still readable text.</p></div>")
        let article = try #require(try extract(html, options: faithful))
        #expect(article.text == "Just one modest paragraph, shorter than the threshold, but still readable text.")
    }

    @Test func nothingReadableGivesNil() throws {
        #expect(try extract("<html><head><title>x</title></head><body></body></html>") == nil)
        #expect(try extract("<html><body><script>var a = 1;</script></body></html>") == nil)
    }

    @Test func lazyImagesArePromoted() throws {
        let img = "<img class='lazy' src='data:image/gif;base64,R0lGODlhAQABAAAAACw=' data-src='/photos/lead.jpg' alt='Lead'>"
        let html = page(body: "<div class='story'><p>\(img)</p>\(fillerParagraphs())</div>")
        let article = try #require(try extract(html, url: "https://news.example.com/a/b.html", options: faithful))
        #expect(article.html.contains("<img src=\"https://news.example.com/photos/lead.jpg\" alt=\"Lead\">"))
        #expect(!article.html.contains("data:"))
    }

    @Test func lazySrcsetAndFigureWithoutImage() throws {
        let figure = "<figure data-src='https://cdn.example.com/fig.webp'></figure>"
        let html = page(body: "<div class='story'>\(figure)\(fillerParagraphs())</div>")
        let article = try #require(try extract(html, options: faithful))
        #expect(article.html.contains("https://cdn.example.com/fig.webp"))
    }

    @Test func noscriptImageReplacesPlaceholder() throws {
        let html = page(body: "<div class='story'><p><img src='https://cdn.example.com/tiny.gif'></p><noscript><img src='https://cdn.example.com/full.jpg'></noscript>\(fillerParagraphs())</div>")
        let article = try #require(try extract(html, options: faithful))
        #expect(article.html.contains("https://cdn.example.com/full.jpg"))
    }

    @Test func hiddenNodesAreRemoved() throws {
        let hidden = "<p style='display: none'>Hidden style marker.</p><p hidden>Hidden attribute marker.</p><p aria-hidden='true'>Aria hidden marker.</p><p style='visibility:hidden'>Invisible marker.</p>"
        let html = page(body: "<div class='story'>\(hidden)\(fillerParagraphs())</div>")
        let article = try #require(try extract(html, options: faithful))
        for marker in ["Hidden style", "Hidden attribute", "Aria hidden", "Invisible"] {
            #expect(!article.text.contains(marker))
        }
    }

    @Test func scriptsStylesAndEmbedsAreDropped() throws {
        let junk = "<script>alert('x')</script><style>p{}</style><iframe src='https://ads.example.net'></iframe><p>Text <span onclick='evil()'>inline</span> end.</p>"
        let html = page(body: "<div class='story'>\(junk)\(fillerParagraphs())</div>")
        let article = try #require(try extract(html, options: faithful))
        #expect(!article.html.contains("script") && !article.html.contains("iframe") && !article.html.contains("onclick"))
        #expect(!article.text.contains("alert"))
        #expect(article.text.contains("Text inline end."))
    }

    @Test func videoEmbedsSurviveCleaningButNotOutput() throws {
        let html = page(body: "<div class='story'><iframe src='https://www.youtube.com/embed/abc'></iframe>\(fillerParagraphs())</div>")
        let article = try #require(try extract(html, options: faithful))
        #expect(!article.html.contains("<iframe"))
        #expect(article.text.contains(filler[0]))
    }

    @Test func doubleBrsBecomeParagraphs() throws {
        let text = filler.joined(separator: "<br><br>")
        let html = page(body: "<div>\(text)</div>")
        let article = try #require(try extract(html, options: faithful))
        #expect(article.text.components(separatedBy: "\n\n").count == 4)
        #expect(article.html.hasPrefix("<p>"))
    }

    @Test func bylineIsTakenAndRemoved() throws {
        let html = page(body: "<div class='story'><p class='byline'>By Jane Roe</p>\(fillerParagraphs())</div>")
        let article = try #require(try extract(html, options: faithful))
        #expect(article.byline == "By Jane Roe")
        #expect(!article.text.contains("Jane Roe"))
    }

    @Test func headerDuplicatingTitleIsRemoved() throws {
        let title = "Council approves a new bus budget for the whole city"
        let html = page(title: "\(title) - The Daily Ledger", body: "<div class='story'><h2>\(title)</h2>\(fillerParagraphs())</div>")
        let article = try #require(try extract(html, options: faithful))
        #expect(article.title == title)
        #expect(!article.text.contains("Council approves"))
    }
}

struct TitleTests {
    func title(_ raw: String, body: String = "") throws -> String {
        let html = page(title: raw, body: body + "<div>\(fillerParagraphs())</div>")
        return try #require(try extract(html)).title
    }

    @Test func separatorsAreCut() throws {
        #expect(try title("Council approves new bus budget for city | The Daily Ledger") == "Council approves new bus budget for city")
        #expect(try title("Council approves new bus budget for city » Daily Ledger") == "Council approves new bus budget for city")
        // Readability.js assumes the site name comes last: a leading "Site » Section" path is kept whole.
        #expect(try title("Ledger » Local » Council approves budget") == "Ledger » Local » Council approves budget")
    }

    @Test func shortResultKeepsOriginal() throws {
        #expect(try title("Big news - Site") == "Big news - Site")
    }

    @Test func colonTitles() throws {
        #expect(try title("Daily Ledger: Council approves new bus budget for city") == "Council approves new bus budget for city")
        let full = "Analysis: why the council approved the budget"
        #expect(try title(full, body: "<h1>\(full)</h1>") == full)
    }

    @Test func shortTitleUsesSingleH1() throws {
        #expect(try title("Ledger", body: "<h1>The council approves a new bus budget</h1>") == "The council approves a new bus budget")
    }

    @Test func metadataComesFromMetaAndJSONLD() throws {
        let head = """
        <meta property="og:title" content="OG title of the story"><meta property="og:site_name" content="Ledger">
        <meta name="description" content="A short description.">
        <script type="application/ld+json">{"@context":"https://schema.org","@type":"NewsArticle","datePublished":"2024-05-14T09:30:00Z","author":{"name":"Ann Lee"}}</script>
        """
        let article = try #require(try extract(page(head: head, body: "<div>\(fillerParagraphs())</div>")))
        #expect(article.title == "OG title of the story")
        #expect(article.siteName == "Ledger")
        #expect(article.excerpt == "A short description.")
        #expect(article.publishedTime == "2024-05-14T09:30:00Z")
        #expect(article.byline == "Ann Lee")
    }

    @Test func excerptFallsBackToFirstParagraph() throws {
        let article = try #require(try extract(page(body: "<div>\(fillerParagraphs())</div>")))
        #expect(article.excerpt == filler[0])
    }
}

/// `_getArticleTitle` cuts its pieces from the title's storage and tests separators with a switch;
/// the previous code (kept below as the reference) rebuilt every piece scalar by scalar from sets.
/// Random titles with every separator, colons, accents, combining marks, CJK and emoji, with and
/// without a matching or single `<h1>`, must get the same title from both.
struct TitleRuleEquivalenceTests {
    static let titleSeparators: Set<Unicode.Scalar> = ["|", "-", "\\", "/", ">", "»"]
    static let hierarchicalSeparators: Set<Unicode.Scalar> = ["\\", "/", ">", "»"]

    static func reference(_ origTitle: String, headingTexts: [String], h1Texts: [String]) -> String {
        func string(_ scalars: ArraySlice<Unicode.Scalar>) -> String { String(String.UnicodeScalarView(scalars)) }
        func spaced(_ scalars: [Unicode.Scalar], _ set: Set<Unicode.Scalar>) -> Bool {
            guard scalars.count >= 3 else { return false }
            return (1..<(scalars.count - 1)).contains { set.contains(scalars[$0]) && scalars[$0 - 1] == " " && scalars[$0 + 1] == " " }
        }
        var curTitle = origTitle
        var hadHierarchicalSeparators = false
        let characters = Array(origTitle.unicodeScalars)
        if spaced(characters, titleSeparators) {
            hadHierarchicalSeparators = spaced(characters, hierarchicalSeparators)
            if let cut = (0..<max(characters.count - 1, 0)).last(where: { titleSeparators.contains(characters[$0]) && characters[$0 + 1] == " " }) {
                curTitle = string(characters[..<cut])
            }
            if Extractor.wordCount(curTitle) < 3, let first = characters.firstIndex(where: { titleSeparators.contains($0) }) {
                curTitle = string(characters[(first + 1)...])
            }
        } else if curTitle.contains(": ") {
            let trimmed = TextScan.trimmingWhitespace(curTitle[...])
            let match = headingTexts.contains { TextScan.trimmingWhitespace($0[...]) == trimmed }
            if !match, let lastColon = characters.lastIndex(of: ":"), let firstColon = characters.firstIndex(of: ":") {
                curTitle = string(characters[(lastColon + 1)...])
                if Extractor.wordCount(curTitle) < 3 {
                    curTitle = string(characters[(firstColon + 1)...])
                } else if Extractor.wordCount(string(characters[..<firstColon])) > 5 {
                    curTitle = origTitle
                }
            }
        } else if curTitle.utf16.count > 150 || curTitle.utf16.count < 15 {
            if h1Texts.count == 1 { curTitle = h1Texts[0] }
        }
        curTitle = TextScan.trimmingWhitespace(curTitle[...]).split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        let curWords = Extractor.wordCount(curTitle)
        let strippedOriginal = String(String.UnicodeScalarView(origTitle.unicodeScalars.filter { !titleSeparators.contains($0) }))
        if curWords <= 4 && (!hadHierarchicalSeparators || curWords != Extractor.wordCount(strippedOriginal) - 1) {
            curTitle = origTitle
        }
        return curTitle
    }

    @Test func randomTitlesMatchTheReference() throws {
        let pieces = ["Council", "budget", "vote", "|", "-", "»", "/", "\\", ">", "News:", "Live:", "a", "b", "café", "e\u{301}te",
                      "中文", "😀", "Site", "x-y", "a/b", "—", "Analysis:", "long-running", "story"]
        var generator = SystemRandomNumberGenerator()  // a failure prints its case
        for _ in 0..<400 {
            let title = (0..<Int.random(in: 1...14, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }
                .joined(separator: " ")
            let h1Count = Int.random(in: 0...2, using: &generator)
            let h1s = (0..<h1Count).map { index in index == 0 && Bool.random(using: &generator) ? title : "Heading \(index) of the page" }
            let body = h1s.map { "<h1>\($0)</h1>" }.joined() + "<div>\(fillerParagraphs())</div>"
            let article = try #require(try extract(page(title: title, body: body)))
            #expect(article.title == Self.reference(title, headingTexts: h1s, h1Texts: h1s), "\(title.debugDescription) h1s \(h1s)")
        }
    }
}
