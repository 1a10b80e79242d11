import Testing
@testable import Readability

/// A label left at the end of the text ("Kontakt:", "Related posts:") goes with the short lines
/// after it when none of them reads as text; an ending that does (a sentence, "key: value" data)
/// stays, and so does a label inside the text.
struct TrailingLabelTests {
    static func text(_ tail: [String]) throws -> String {
        try #require(try extract(page(body: "<article>\(fillerParagraphs(4))\(paragraphs(tail))</article>"))).text
    }

    @Test(arguments: [
        ["Kontakt:"],
        ["Related posts:"],
        ["Von:", "Jana Beispiel"],
        ["Kontakt:", "Ansprechpartnerin zum Thema:", "Jana Beispiel", "KLIMANEUTRALITÄT VON UNTERNEHMEN"],
    ])
    func aTrailingLabelGoes(_ tail: [String]) throws {
        let text = try Self.text(tail)
        #expect(text.hasSuffix(filler[3]), "the article ends on its last paragraph")
        for line in tail { #expect(!text.contains(line), "\(line)") }
    }

    @Test(arguments: [
        ["Anfahrt:", "Am See 12, 41542 Dormagen", "Be there or be square!"],
        ["Details:", "Brennweite in mm: 180", "ISO: 640"],
        ["Read the full report here.", "The council meets again in March"],
    ])
    func anEndingThatReadsAsTextStays(_ tail: [String]) throws {
        let text = try Self.text(tail)
        for line in tail { #expect(text.contains(line), "\(line)") }
    }

    /// A label before the article's last paragraph introduces it.
    @Test func aLabelBeforeAParagraphStays() throws {
        let text = try Self.text(["Background:", filler[0]])
        #expect(text.contains("Background:"))
    }

    /// A heading as the last line titles a rail whose teasers went; a lone script link ("zurück"
    /// to history.back()) is a control.
    @Test(arguments: [
        "<h4>DEN RICHTIGEN FINDEN</h4>",
        "<h3>More from the region</h3>",
        #"<p><a href="javascript:history.back()">zurück</a></p>"#,
    ])
    func aHeadingOrAControlEndingTheTextGoes(_ tail: String) throws {
        let text = try #require(try extract(page(body: "<article>\(fillerParagraphs(4))\(tail)</article>"))).text
        #expect(text.hasSuffix(filler[3]), "the article ends on its last paragraph")
    }

    /// A heading with its paragraph after it, and a link to a page, are the article's; so is a
    /// last paragraph set as a script link.
    @Test func aParagraphAsAScriptLinkStays() throws {
        let text = try Self.text([])
        let linked = try #require(try extract(page(body: "<article>\(fillerParagraphs(3))<p><a href=\"javascript:void(0)\">\(filler[3])</a></p></article>"))).text
        #expect(text.hasSuffix(filler[3]) && linked.hasSuffix(filler[3]))
    }

    /// A heading with its paragraph after it, and a link to a page, are the article's.
    @Test func aHeadingWithItsParagraphAndAPlainLinkStay() throws {
        let tail = #"<h3>What comes next</h3><p>The council votes in March.</p><p><a href="https://example.org/report.pdf">The full report</a></p>"#
        let text = try #require(try extract(page(body: "<article>\(fillerParagraphs(4))\(tail)</article>"))).text
        #expect(text.contains("What comes next"))
        #expect(text.hasSuffix("The full report"))
    }

    @Test func labelLines() {
        #expect(Extractor.isLabelLine("Mehr Themen:"))
        #expect(Extractor.isLabelLine("For more information:"))
        #expect(!Extractor.isLabelLine("These are the four things to know:"))
        #expect(!Extractor.isLabelLine("Kontakt"))
        #expect(Extractor.readsAsText("ISO-Zahl: 640"))
        #expect(Extractor.readsAsText("Thanks!"))
        #expect(!Extractor.readsAsText("Jana Beispiel"))
    }
}
