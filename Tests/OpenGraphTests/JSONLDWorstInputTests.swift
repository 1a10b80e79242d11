import Testing
import HTMLDocument
@testable import OpenGraph

/// JSON-LD is untrusted page text decoded by `JSONDecoder`, which cannot be asked a value's type:
/// each wrong guess throws an error copying the value's coding path. What bounds it on the worst
/// shapes: the 1 MB script cap (`JSONLD.maxScriptBytes`), the shape limits checked before decoding
/// (`maxNesting` levels and `maxContainers` arrays and objects), and the 500-object cap on what
/// is flattened.
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

    @Test func nestingAtTheShapeLimitIsRead() throws {
        let limit = JSONLD.maxNesting
        // An article holding a member nested to the limit is still found; one level more is not.
        let inner = String(repeating: "{\"a\":", count: limit - 1) + "\"x\"" + String(repeating: "}", count: limit - 1)
        let found = try objects("{\"@type\":\"NewsArticle\",\"headline\":\"Deep\",\"x\":\(inner)}")
        #expect(found.map(\.headline) == ["Deep"])
        let tooDeep = "{\"@type\":\"NewsArticle\",\"headline\":\"Deep\",\"x\":{\"a\":\(inner)}}"
        #expect(try objects(tooDeep).isEmpty)
        // The members that are read recurse: arrays, `@graph` and `image` arrays to the limit.
        let arrays = String(repeating: "[", count: limit - 1) + "{\"@type\":\"NewsArticle\",\"headline\":\"Deep\"}"
            + String(repeating: "]", count: limit - 1)
        #expect(try objects(arrays).map(\.headline) == ["Deep"])
        let graphs = String(repeating: "{\"@graph\":[", count: limit / 2 - 1) + "{\"headline\":\"In graph\"}"
            + String(repeating: "]}", count: limit / 2 - 1)
        #expect(try objects(graphs).count == limit / 2)
        let images = "{\"@type\":\"NewsArticle\",\"image\":" + String(repeating: "[", count: limit - 1) + "\"https://x.test/a.jpg\""
            + String(repeating: "]", count: limit - 1) + "}"
        #expect(try objects(images).first?.images == ["https://x.test/a.jpg"])
        // Brackets inside strings, escaped quotes included, are not nesting.
        let quoted = "{\"@type\":\"NewsArticle\",\"headline\":\"\\\"" + String(repeating: "[{", count: 100) + "\"}"
        #expect(try objects(quoted).count == 1)
    }

    @Test func aMegabyteOfDeepArraysIsRefusedBeforeDecoding() throws {
        // The shape that took minutes: a megabyte of 500-level arrays, as `image` and as the script.
        let chain = String(repeating: "[", count: 500) + "1" + String(repeating: "]", count: 500)
        let chains = Array(repeating: chain, count: 990).joined(separator: ",")
        #expect(try objects("{\"@type\":\"NewsArticle\",\"image\":[\(chains)]}").isEmpty)
        #expect(try objects("[\(chains)]").isEmpty)
        // At the limits instead: as many containers as allowed, each nested to the limit, decode.
        // (The article object and its `image` array are two levels and two containers.)
        let legal = String(repeating: "[", count: JSONLD.maxNesting - 2) + "1" + String(repeating: "]", count: JSONLD.maxNesting - 2)
        let count = (JSONLD.maxContainers - 2) / (JSONLD.maxNesting - 2)
        let page = "{\"@type\":\"NewsArticle\",\"headline\":\"Wide\",\"image\":[" + Array(repeating: legal, count: count).joined(separator: ",") + "]}"
        #expect(try objects(page).map(\.headline) == ["Wide"])
    }

    @Test func scriptsOverTheCapAreSkippedUnread() throws {
        let padding = String(repeating: " ", count: JSONLD.maxScriptBytes)
        #expect(try objects("{\"@type\":\"NewsArticle\",\"headline\":\"Big\"}" + padding).isEmpty)
    }

    @Test func flatteningStopsAtTheObjectCap() throws {
        let many = "[" + Array(repeating: "{\"@type\":\"Thing\"}", count: 5_000).joined(separator: ",") + "]"
        #expect(try objects(many).count == JSONLD.maxObjects)
    }

    /// A string an older shape check ended early (`"\u000\"`: it took `\"` for an escaped quote)
    /// followed by a megabyte of opening brackets: the check ends the string where the decoder
    /// does, so the brackets count as nesting and the text is refused before decoding.
    @Test func bracketsBehindAFourByteEscapeAreRefused() throws {
        let json = #"["\u000\""# + String(repeating: "[", count: 500_000)
        #expect(!json.utf8.withContiguousStorageIfAvailable(JSONLD.withinShapeLimits)!)
        #expect(try objects(json).isEmpty)
        let deep = String(repeating: "[", count: JSONLD.maxNesting + 1) + String(repeating: "]", count: JSONLD.maxNesting + 1)
        #expect(!deep.utf8.withContiguousStorageIfAvailable(JSONLD.withinShapeLimits)!)
        let legal = #"{"name":"\u0041","image":"#  + String(repeating: "[", count: JSONLD.maxNesting - 1) + #""u""#
            + String(repeating: "]", count: JSONLD.maxNesting - 1) + "}"
        #expect(try objects(legal) == [{ var o = JSONLDObject(); o.name = "A"; o.images = ["u"]; return o }()])
    }

    /// What the decoder reads per member, at a megabyte: a string of escapes (each a scalar to
    /// write) read as `articleBody`, and 40,000 members whose keys hold escapes (each key decoded
    /// and compared with the fifteen read), one of them `name`.
    @Test func escapeHeavyScripts() throws {
        let escapes = String(repeating: #"\u00e9\n"#, count: 120_000)
        var body = try objects(#"{"articleBody":""# + escapes + #""}"#)
        #expect(body.count == 1 && body[0].articleBody?.unicodeScalars.count == 240_000)
        let members = (0..<40_000).map { #""k\u00e9\#($0)":1"# }.joined(separator: ",")
        body = try objects("{" + members + #","n\u0061me":"last"}"#)
        #expect(body.count == 1 && body[0].name == "last")
    }
}
