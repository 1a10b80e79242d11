import Testing
import HTMLDocument
@testable import OpenGraph

/// JSON-LD is untrusted page text read with FoundationEssentials' `JSONDecoder` (`JSONLDItem`).
/// What bounds it on the worst shapes: the 1 MB script cap (`JSONLD.maxScriptBytes`), the
/// decoder's own refusal of nesting deeper than 512 (so `JSONLDItem`'s recursion through arrays
/// and `@graph` is at most 512 frames; members it does not read are never decoded), and the
/// 500-object cap on what is flattened.
@Suite struct JSONLDWorstInputTests {
    private func objects(_ json: String) throws -> [JSONLDObject] {
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
        #expect(found.first?.headline == "Deep")
        // The members that are read recurse: arrays, `@graph` and `image` arrays at that depth.
        let arrays = String(repeating: "[", count: 510) + "{\"@type\":\"NewsArticle\",\"headline\":\"Deep\"}"
            + String(repeating: "]", count: 510)
        #expect(try objects(arrays).map(\.headline) == ["Deep"])
        let graphs = String(repeating: "{\"@graph\":[", count: 255) + "{\"headline\":\"In graph\"}"
            + String(repeating: "]}", count: 255)
        #expect(try objects(graphs).count == 256)
        let images = "{\"@type\":\"NewsArticle\",\"image\":" + String(repeating: "[", count: 510) + "\"https://x.test/a.jpg\""
            + String(repeating: "]", count: 510) + "}"
        #expect(try objects(images).first?.images == ["https://x.test/a.jpg"])
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
