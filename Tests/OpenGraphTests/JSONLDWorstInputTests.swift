import Testing
import HTMLDocument
@testable import OpenGraph

/// JSON-LD is untrusted page text read with FoundationEssentials' `JSONDecoder` (`PlainJSON`).
/// What bounds it on the worst shapes: the 1 MB script cap (`JSONLD.maxScriptBytes`), the
/// decoder's own refusal of nesting deeper than 512 (so `PlainJSON`'s recursion is at most 512
/// frames), and the 500-object cap on what is flattened.
@Suite struct JSONLDWorstInputTests {
    private func objects(_ json: String) throws -> [[String: Any]] {
        let html = "<html><head><script type=\"application/ld+json\">\(json)</script></head><body><p>x</p></body></html>"
        return JSONLD.objects(in: try HTMLDocument.parse(html: html))
    }

    @Test func nestingPastTheDecodersLimitIsIgnoredWholesale() throws {
        // Just under the 1 MB cap: 500,000 levels, refused by the decoder before any recursion.
        let depth = 500_000
        #expect(try objects(String(repeating: "[", count: depth) + String(repeating: "]", count: depth)).isEmpty)
        let objectsDeep = String(repeating: "{\"a\":", count: 100_000) + "1" + String(repeating: "}", count: 100_000)
        #expect(try objects(objectsDeep).isEmpty)
    }

    @Test func nestingAtTheDecodersLimitIsReadOnATestThread() throws {
        // 512 levels, the deepest the decoder accepts: the article at the top is still found.
        let inner = String(repeating: "{\"a\":", count: 510) + "\"x\"" + String(repeating: "}", count: 510)
        let found = try objects("{\"@type\":\"NewsArticle\",\"headline\":\"Deep\",\"x\":\(inner)}")
        #expect(found.count == 1)
        #expect(found.first?["headline"] as? String == "Deep")
    }

    @Test func scriptsOverTheCapAreSkippedUnread() throws {
        let padding = String(repeating: " ", count: JSONLD.maxScriptBytes)
        #expect(try objects("{\"@type\":\"NewsArticle\",\"headline\":\"Big\"}" + padding).isEmpty)
    }

    @Test func flatteningStopsAtTheObjectCap() throws {
        let many = "[" + Array(repeating: "{\"@type\":\"Thing\"}", count: 5_000).joined(separator: ",") + "]"
        #expect(try objects(many).count == JSONLD.maxObjects)
    }
}
