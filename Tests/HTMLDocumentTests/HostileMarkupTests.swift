import Foundation
import Testing
@testable import HTMLDocument

/// Issue 12, items 1-3: shapes that cost gumbo minutes or gigabytes are refused before (or
/// while) it runs, each with its reason. Inputs are generated here, never committed.
struct HostileMarkupTests {
    static func attributes(_ count: Int, from start: Int = 0) -> String {
        (start..<(start + count)).map { "a\($0)=1" }.joined(separator: " ")
    }

    @Test func attributeFloodOnOneElementIsRefused() {
        let html = "<html><body><div \(Self.attributes(300_000))>x</div></body></html>"
        #expect(throws: HTMLDocumentError.tooManyAttributes(limit: 512)) { try HTMLDocument.parse(html: html) }
    }

    @Test func attributeFloodSpreadOverElementsIsRefused() {
        let html = (0..<500).map { "<i \(Self.attributes(500, from: $0 * 500))>x</i>" }.joined()
        #expect(throws: HTMLDocumentError.tooManyAttributesInTotal(limit: 200_000)) { try HTMLDocument.parse(html: html) }
    }

    @Test func ordinaryAttributeCountsParse() throws {
        let document = try HTMLDocument.parse(html: "<p \(Self.attributes(100))>x</p>")
        #expect(document.attribute("a99", of: document.firstElement(named: "p")!) == "1")
    }

    /// `<!-->` is an empty comment and `--!>` closes one: markup after them is markup.
    @Test(arguments: ["<!-->", "<!--->", "<!-- a --!>", "<!-- a ---->", "<!x>", "<?php ?>", "</ x>"])
    func commentFormsDoNotHideNesting(opener: String) {
        let html = "<html><body>\(opener)" + String(repeating: "<div>", count: 100_000) + "x</body></html>"
        #expect(throws: HTMLDocumentError.nestingTooDeep(limit: 512)) { try HTMLDocument.parse(html: html) }
    }

    @Test func emptyCommentLeavesFollowingElementsInTheTree() throws {
        let document = try HTMLDocument.parse(html: "<body><!--><p id=a>x</p><!-- c --!><p id=b>y</p></body>")
        #expect(document.elements(named: "p").count == 2)
    }

    /// A raw-text element ends only at its appropriate end tag; `plaintext` never ends.
    @Test func rawTextEndsOnlyAtItsOwnEndTag() {
        let deep = String(repeating: "<div>", count: 100_000)
        #expect(throws: HTMLDocumentError.nestingTooDeep(limit: 512)) {
            try HTMLDocument.parse(html: "<script>a</scriptx>b</script>\(deep)")
        }
        // Inside SVG, <style> and <title> are ordinary elements whose content is markup.
        #expect(throws: HTMLDocumentError.nestingTooDeep(limit: 512)) {
            try HTMLDocument.parse(html: "<svg><style>\(deep)")
        }
        #expect(throws: Never.self) { try HTMLDocument.parse(html: "<plaintext>\(deep)") }
    }

    /// `<div></i>`: the parser ignores an end tag with nothing open of its name.
    @Test func unmatchedEndTagsDoNotHideNesting() {
        let html = "<body>" + String(repeating: "<div></i>", count: 90_000)
        #expect(throws: HTMLDocumentError.nestingTooDeep(limit: 512)) { try HTMLDocument.parse(html: html) }
    }

    /// Each `<p>` pushes the earlier unclosed `<b>`s off the stack and the next start tag
    /// re-opens them all: quadratic elements (4 MB peaked at 5.4 GB before).
    @Test(arguments: ["<p><b id=%d class=\"c%d\">x", "<span><b id=%d class=\"c%d\">x</span>", "<div><i id=%d title=%d>x</div>"])
    func reopenedFormattingElementsAreRefused(pattern: String) {
        let html = "<html><body>" + (0..<2_040).map { String(format: pattern, $0, $0) }.joined() + "</body></html>"
        #expect(throws: HTMLDocumentError.tooManyReopenedElements(limit: 250_000)) { try HTMLDocument.parse(html: html) }
    }

    @Test func closedFormattingElementsAreNotCounted() throws {
        let html = (0..<5_000).map { "<p><b id=\($0)>x</b> y</p>" }.joined()
        #expect(try HTMLDocument.parse(html: html).elements(named: "b").count == 5_000)
    }

    /// Shapes the pre-scan lets through are still bounded while gumbo builds.
    @Test func gumboIsAbandonedPastItsMemoryBudget() {
        let html = String(repeating: "<p>some text</p>", count: 20_000)
        let limits = HTMLParseLimits(maxParserMemory: 1_048_576)
        #expect(throws: HTMLDocumentError.parserMemoryExceeded(limitBytes: 1_048_576)) {
            try HTMLDocument.parse(html: html, limits: limits)
        }
    }

    @Test func gumboIsAbandonedPastItsCPUBudget() {
        let html = String(repeating: "<p>some text</p>", count: 20_000)
        let limits = HTMLParseLimits(parserCPUSeconds: 0)
        #expect(throws: HTMLDocumentError.parserCPUExceeded(seconds: 0)) { try HTMLDocument.parse(html: html, limits: limits) }
    }

    @Test func guardedParseStillWorksAfterAnAbandonedOne() throws {
        _ = try? HTMLDocument.parse(html: String(repeating: "<p>x</p>", count: 5_000), limits: HTMLParseLimits(maxParserMemory: 65_536))
        #expect(try HTMLDocument.parse(html: "<p>ok</p>").textContent(of: HTMLDocument.parse(html: "<p>ok</p>").root) == "ok")
    }

    @Test func refusalReasonsReadAsOneLine() {
        let errors: [HTMLDocumentError] = [.tooManyAttributes(limit: 512), .tooManyAttributesInTotal(limit: 9),
                                           .tooManyReopenedElements(limit: 3), .parserMemoryExceeded(limitBytes: 268_435_456),
                                           .parserCPUExceeded(seconds: 1)]
        for error in errors { #expect(!error.description.isEmpty && !error.description.contains("\n")) }
        #expect(HTMLDocumentError.parserMemoryExceeded(limitBytes: 268_435_456).description.contains("256 MB"))
    }
}

/// Sloppy but ordinary pages must not look like the re-opening attack.
struct SloppyMarkupTests {
    @Test func unclosedFontsAtTheTopDoNotCountAsReopened() throws {
        let html = "<body>" + String(repeating: "<font face=x>", count: 40) + (0..<20_000).map { "<p>para \($0)" }.joined()
        #expect(try HTMLDocument.parse(html: html).elements(named: "p").count == 20_000)
    }

    @Test func unclosedFormattingInTableCellsIsClearedAtEachCell() throws {
        let html = "<table>" + (0..<500).map { _ in "<tr><td><font color=red>a<td><b>b" }.joined() + "</table>"
        #expect(try HTMLDocument.parse(html: html).elements(named: "td").count == 1_000)
    }
}
