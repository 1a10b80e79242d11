import Foundation
import Testing
import HTMLDocument
@testable import OpenGraph

struct ImageTests {
    let pageURL = "https://news.example.com/world/2024/story.html?id=7"

    func image(_ head: String, body: String = "") throws -> String? {
        let document = try HTMLDocument.parse(html: "<html><head>\(head)</head><body>\(body)</body></html>")
        return OpenGraph.imageURL(in: document, pageURL: pageURL)
    }

    @Test func ogImageWins() throws {
        let head = "<meta name=twitter:image content='https://cdn.example.com/t.jpg'><meta property='og:image' content='https://cdn.example.com/og.jpg'>"
        #expect(try image(head) == "https://cdn.example.com/og.jpg")
    }

    @Test func fallsThroughUnacceptableCandidatesInOrder() throws {
        let head = """
        <meta property="og:image" content="javascript:alert(1)">
        <meta property="og:image:secure_url" content="data:image/png;base64,AAAA">
        <meta property="og:image:url" content="https://cdn.example.com/spacer.gif">
        <meta name="twitter:image" content="https://user:pw@cdn.example.com/a.jpg">
        <meta name="twitter:image:src" content="https://cdn.example.com/real.jpg">
        """
        #expect(try image(head) == "https://cdn.example.com/real.jpg")
    }

    @Test func relativeURLResolvedAgainstBaseHref() throws {
        let head = "<base href='https://static.example.org/assets/'><meta property='og:image' content='../img/lead.jpg'>"
        #expect(try image(head) == "https://static.example.org/img/lead.jpg")
    }

    @Test func relativeURLResolvedAgainstPageURL() throws {
        #expect(try image("<meta property='og:image' content='/img/a b.jpg'>") == "https://news.example.com/img/a%20b.jpg")
        #expect(try image("<meta property='og:image' content='//cdn.example.net/x.png'>") == "https://cdn.example.net/x.png")
    }

    @Test func doubleEncodedEntitiesAreDecoded() throws {
        let head = "<meta property='og:image' content='https://cdn.example.com/i.jpg?w=800&amp;amp;h=600'>"
        #expect(try image(head) == "https://cdn.example.com/i.jpg?w=800&h=600")
    }

    @Test func linkImageSrc() throws {
        #expect(try image("<link rel='image_src' href='/lead.png'>") == "https://news.example.com/lead.png")
    }

    @Test func placeholdersAreSkipped() throws {
        for bad in ["https://a.example.com/1x1.gif", "https://a.example.com/pixel.gif", "https://a.example.com/images/logo.svg",
                    "https://a.example.com/img/placeholder.png", "https://a.example.com/default-image.jpg", "https://a.example.com/blank.gif"] {
            #expect(ImagePlaceholder.isPlaceholder(bad), "\(bad)")
        }
        #expect(!ImagePlaceholder.isPlaceholder("https://a.example.com/photos/pixel-art-show.jpg"))
    }

    @Test func controlAndBidiCharactersRejected() throws {
        #expect(try image("<meta property='og:image' content='https://cdn.example.com/a\u{202E}gpj.exe'>") == nil)
        #expect(try image("<meta property='og:image' content='https://cdn.example.com/a&#1;.jpg'>") == nil)
    }

    @Test func overlongURLRejected() throws {
        let long = "https://cdn.example.com/" + String(repeating: "a", count: 2100) + ".jpg"
        #expect(try image("<meta property='og:image' content='\(long)'>") == nil)
    }

    @Test func jsonLDString() throws {
        let ld = #"<script type="application/ld+json">{"@context":"https://schema.org","@type":"NewsArticle","image":"https://cdn.example.com/ld.jpg"}</script>"#
        #expect(try image(ld) == "https://cdn.example.com/ld.jpg")
    }

    @Test func jsonLDArrayAndImageObject() throws {
        let ld = #"<script type="application/ld+json">{"@type":"Article","image":[{"@type":"ImageObject","url":"data:x"},{"@type":"ImageObject","url":"/img/obj.jpg"}]}</script>"#
        #expect(try image(ld) == "https://news.example.com/img/obj.jpg")
    }

    @Test func jsonLDGraphPrefersArticleOverLogo() throws {
        let ld = #"""
        <script type="application/ld+json">{"@context":"https://schema.org","@graph":[
          {"@type":"Organization","image":"https://cdn.example.com/brand.png"},
          {"@type":"NewsArticle","image":{"@type":"ImageObject","contentUrl":"https://cdn.example.com/graph.jpg"}}]}</script>
        """#
        #expect(try image(ld) == "https://cdn.example.com/graph.jpg")
    }

    /// Script text as some pages write it: a byte-order mark (pasted from a UTF-8 file), a CDATA
    /// wrapper, a trailing comma; all read, as they were before.
    @Test func jsonLDWithByteOrderMarkCDATAOrTrailingComma() throws {
        for json in ["\u{FEFF}{\"image\":\"https://cdn.example.com/bom.jpg\"}",
                     "<![CDATA[{\"image\":\"https://cdn.example.com/bom.jpg\"}]]>",
                     "{\"image\":[\"https://cdn.example.com/bom.jpg\",],}"] {
            #expect(try image("<script type=\"application/ld+json\">\(json)</script>") == "https://cdn.example.com/bom.jpg", "\(json)")
        }
    }

    @Test func brokenJSONLDIsIgnored() throws {
        #expect(try image(#"<script type="application/ld+json">{"image": "https://x.example.com/a.jpg",</script>"#) == nil)
    }

    @Test func headPrefixStopsAtHeadEnd() throws {
        let html = "<html><head><title>t</title></head><body><meta property='og:image' content='https://cdn.example.com/body.jpg'>" + String(repeating: "x", count: 1000)
        #expect(OpenGraph.imageURL(inPage: Array(html.utf8), pageURL: pageURL) == nil)
        let prefix = OpenGraph.headPrefix(Array(html.utf8))
        #expect(String(decoding: prefix, as: UTF8.self).hasSuffix("</head>"))
    }

    @Test func hugeHeadIsReadOnlyTo256KB() throws {
        let filler = "<meta name='x' content='" + String(repeating: "y", count: 300_000) + "'>"
        let html = "<html><head>\(filler)<meta property='og:image' content='https://cdn.example.com/late.jpg'></head></html>"
        #expect(OpenGraph.headPrefix(Array(html.utf8)).count == OpenGraph.headByteLimit)
        #expect(OpenGraph.imageURL(inPage: Array(html.utf8), pageURL: pageURL) == nil)
        let early = "<html><head><meta property='og:image' content='https://cdn.example.com/early.jpg'>\(filler)</head></html>"
        #expect(OpenGraph.imageURL(inPage: Array(early.utf8), pageURL: pageURL) == "https://cdn.example.com/early.jpg")
    }
}

/// `ImagePlaceholder.lastSegment` splits ASCII paths on bytes; it must give what splitting by
/// Character gives.
@Suite struct LastSegmentTests {
    @Test(arguments: ["", "/", "//", "/a", "/a/", "/a/b.jpg", "a", "/img//lead.jpg//", "/caf%C3%A9/x.png", "/é/ü.jpg", "/a/\u{301}b"])
    func splitsAsCharactersDo(path: String) {
        #expect(ImagePlaceholder.lastSegment(of: path) == (path.split(separator: "/").last.map(String.init) ?? ""))
    }
}

/// `URLResolver.clean` returns most URLs untouched; it must give what the scalar rebuild gives.
@Suite struct URLCleanShortcutTests {
    @Test(arguments: ["", " ", "https://x.test/a.jpg", " https://x.test/a.jpg ", "https://x.test/a\tb", "https://x.test\\a",
                      "\u{0C}https://x.test/", "https://x.test/\n", "https://x.test/é", "a\r\nb", "\u{A0}https://x.test/\u{A0}"])
    func answersAsTheRebuildDoes(text: String) {
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars where scalar != "\t" && scalar != "\n" && scalar != "\r" {
            scalars.append(scalar == "\\" ? "/" : scalar)
        }
        #expect(URLResolver.clean(text) == String(scalars).trimmingASCIIWhitespace())
    }
}
