import Foundation
import Testing
import FeedParser

/// Issue 12, item 1 for feeds: attribute floods in Atom XHTML content (inside one libxml2 reader
/// step, where the CPU budget cannot be checked) and in escaped HTML (parsed again as HTML when
/// the item is mapped) are refused with a reason. Inputs are generated here.
struct MarkupFloodTests {
    static func attributes(_ count: Int, quoted: Bool) -> String {
        (0..<count).map { quoted ? "a\($0)=\"1\"" : "a\($0)=1" }.joined(separator: " ")
    }

    @Test func xhtmlContentAttributeFloodIsRefused() {
        let xml = """
            <?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>f</title><entry><title>e</title>\
            <link href="http://example.com/a"/><id>1</id><content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml">\
            <p \(Self.attributes(200_000, quoted: true))>x</p></div></content></entry></feed>
            """
        #expect(throws: FeedParseError.markupTooComplex("the document has an element with more than 512 attributes")) {
            try parseString(xml)
        }
    }

    @Test func escapedHTMLAttributeFloodIsRefused() {
        let xml = """
            <?xml version="1.0"?><rss version="2.0"><channel><title>f</title><item><title>e</title>\
            <link>http://example.com/a</link><description>&lt;p \(Self.attributes(200_000, quoted: false))&gt;x\
            </description></item></channel></rss>
            """
        #expect(throws: FeedParseError.markupTooComplex("item 1's text has an element with more than 512 attributes")) {
            try parseString(xml)
        }
    }

    @Test func ordinaryEscapedMarkupStillParses() throws {
        let xml = """
            <?xml version="1.0"?><rss version="2.0"><channel><title>f</title><item><title>e</title>\
            <link>http://example.com/a</link><description>&lt;p class="a" id="b"&gt;Hello &lt;b&gt;there&lt;/b&gt;\
            </description></item></channel></rss>
            """
        #expect(try parseString(xml).items.first?.summary == "Hello there")
    }

    /// The attribute scan's worst shapes for its own work: a `<` every other byte (each one a
    /// memchr hit that is not a tag) and a tag whose quote never closes (the inner loop runs to
    /// the end once). Both are single linear passes over 4 MB; the documents then parse as usual.
    @Test(.timeLimit(.minutes(1))) func attributeScanStaysLinearOnItsWorstShapes() throws {
        // In CDATA the raw bytes carry the `<`s, so the whole-document scan meets them too.
        let lessThans = "<![CDATA[" + String(repeating: "< ", count: 2_000_000) + "]]>"
        let unclosed = "<![CDATA[<p a=\"" + String(repeating: "x ", count: 2_000_000) + "]]>"
        for text in [lessThans, unclosed] {
            let xml = """
                <?xml version="1.0"?><rss version="2.0"><channel><title>f</title><item><title>e</title>\
                <link>http://example.com/a</link><description>\(text)</description></item></channel></rss>
                """
            #expect(try parseString(xml).items.count == 1)
        }
    }

    @Test func refusalReadsAsOneLine() {
        let error = FeedParseError.markupTooComplex("item 1's text has more than 200000 attributes")
        #expect(error.description == "markup too complex: item 1's text has more than 200000 attributes")
    }
}
