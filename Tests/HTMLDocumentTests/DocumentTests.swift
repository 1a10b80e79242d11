import Foundation
import Testing
@testable import HTMLDocument

struct DocumentTests {
    @Test func walksTreeAndReadsAttributes() throws {
        let document = try HTMLDocument.parse(html: "<title> Hello   world </title><div id=a class='x y'><p>One <b>two</b></p><p>three</p><my-widget data-k=v>w</my-widget></div>")
        #expect(document.title == "Hello world")
        let div = try #require(document.firstElement(named: "div"))
        #expect(document.attribute("class", of: div) == "x y")
        #expect(document.elements(named: "p").count == 2)
        #expect(document.textContent(of: div) == "One twothreew")
        let custom = try #require(document.firstElement(named: "my-widget"))
        #expect(document.attribute("data-k", of: custom) == "v")
        #expect(document.parent(of: custom) == div)
        #expect(document.head != nil && document.body != nil)
    }

    @Test func tooLargeIsRefused() {
        let big = [UInt8](repeating: 0x61, count: 2_001)
        #expect(throws: HTMLDocumentError.tooLarge(bytes: 2_001, limit: 2_000)) {
            try HTMLDocument.parse(big, limits: HTMLParseLimits(maxBytes: 2_000))
        }
    }

    @Test func tooManyElementsFailsFast() {
        let html = String(repeating: "<span>x</span>", count: 200)
        #expect(throws: HTMLDocumentError.tooManyElements(limit: 100)) {
            try HTMLDocument.parse(html: html, limits: HTMLParseLimits(maxElements: 100))
        }
    }

    @Test func deepNestingWithinPrescanIsCutAtMaxDepth() throws {
        let html = String(repeating: "<div>", count: 300) + "deep text" + String(repeating: "</div>", count: 300)
        let document = try HTMLDocument.parse(html: html, limits: HTMLParseLimits(maxDepth: 100))
        #expect(document.depthTruncated)
        #expect(!document.textContent(of: document.root).contains("deep text"))
        var maxDepth = 0
        for node in document.descendants(of: document.root) {
            var depth = 0
            var cursor: HTMLDocument.NodeID? = node
            while let current = cursor { depth += 1; cursor = document.parent(of: current) }
            maxDepth = max(maxDepth, depth)
        }
        #expect(maxDepth <= 102)
    }

    @Test func twoHundredThousandNestedDivsAreRefused() {
        let html = String(repeating: "<div>", count: 200_000)
        #expect(throws: HTMLDocumentError.nestingTooDeep(limit: 512)) { try HTMLDocument.parse(html: html) }
    }

    @Test func selfClosingDivsStillCountAsNesting() {
        let html = String(repeating: "<div/>", count: 5_000)
        #expect(throws: HTMLDocumentError.nestingTooDeep(limit: 512)) { try HTMLDocument.parse(html: html) }
    }

    @Test func tenMegabyteAttributeIsRefusedBySizeCap() {
        let html = "<div title=\"" + String(repeating: "a", count: 10_000_000) + "\">x</div>"
        #expect(throws: HTMLDocumentError.self) { try HTMLDocument.parse(html: html) }
    }

    @Test func hugeAttributeUnderCapParses() throws {
        let html = "<div title=\"" + String(repeating: "a", count: 4_000_000) + "\">x</div>"
        let document = try HTMLDocument.parse(html: html)
        let div = try #require(document.firstElement(named: "div"))
        #expect(document.attribute("title", of: div)?.count == 4_000_000)
    }

    @Test func unclosedEverythingParses() throws {
        let html = "<html><body><p>one<table><tr><td>cell<ul><li>a<li>b<div><span><a href=x>link<p>two"
        let document = try HTMLDocument.parse(html: html)
        #expect(document.textContent(of: document.root).contains("two"))
        #expect(document.elements(named: "li").count == 2)
    }

    @Test func scriptContentDoesNotCountAsElements() throws {
        let script = "<script>" + String(repeating: "document.write('<div>');", count: 1_000) + "</script><p>ok</p>"
        let document = try HTMLDocument.parse(html: script, limits: HTMLParseLimits(maxElements: 50, maxDepth: 20))
        #expect(document.elements(named: "p").count == 1)
    }

    @Test func errorsHaveOneLineDescriptions() {
        let errors: [HTMLDocumentError] = [.tooLarge(bytes: 9, limit: 5), .tooManyElements(limit: 3), .nestingTooDeep(limit: 4), .parserFailed]
        for error in errors {
            #expect(!error.description.isEmpty && !error.description.contains("\n"))
        }
    }
}
