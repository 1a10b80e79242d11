import Foundation
import Testing
import FeedParser

@Suite("Encodings")
struct EncodingTests {
    static let title = "Café “quoted” – naïve"

    @Test(arguments: ["utf8-bom.xml", "utf16le-bom.xml", "utf16be-nobom.xml", "latin1-really-1252.xml",
                      "utf8-labelled-latin1.xml"])
    func decodesToTheSameTitle(_ name: String) throws {
        let doc = try Fixture.parse(name)
        #expect(doc.items.first?.title == Self.title, "\(name)")
        #expect(doc.recovered == false)
    }

    @Test func reportsDetectedEncoding() throws {
        #expect(try Fixture.parse("latin1-really-1252.xml").encoding == "windows-1252")
        #expect(try Fixture.parse("utf16le-bom.xml").encoding == "utf-16le")
        #expect(try Fixture.parse("utf8-labelled-latin1.xml", contentType: "text/xml; charset=ISO-8859-1").encoding == "utf-8")
    }

    @Test func strayLatin1BytesAreRepaired() throws {
        let doc = try Fixture.parse("utf8-stray-latin1.xml")
        #expect(doc.encodingRepaired)
        #expect(doc.items.first?.title == Self.title)
        #expect(doc.items.first?.summary == "Crème brûlée")
    }

    @Test func httpCharsetWhenNoDeclaration() throws {
        let doc = try Fixture.parse("cp1251-http.xml", contentType: "application/rss+xml; charset=\"windows-1251\"")
        #expect(doc.items.first?.title == "Привет мир")
        #expect(doc.items.first?.summary == "кириллица")
    }

    @Test func declarationCharsetViaIconv() throws {
        let doc = try Fixture.parse("shift-jis.xml")
        #expect(doc.items.first?.title == "日本語のタイトル")
        #expect(doc.encoding == "shift_jis")
    }

    @Test func illegalControlCharactersDropped() throws {
        let doc = try Fixture.parse("controls.xml")
        #expect(doc.items.first?.title == "Bell and formfeed")
        #expect(doc.items.first?.summary == "esc[0m")
        #expect(doc.encodingRepaired)
    }

    @Test func outputIsAlwaysValidUTF8() throws {
        // Random high bytes in every field: the result must still round-trip as UTF-8.
        var bytes = Array("<rss version=\"2.0\"><channel><title>T".utf8)
        bytes += [0xFF, 0xC3, 0x28, 0xE2, 0x82, 0x80, 0xED, 0xA0, 0x80]
        bytes += Array("</title><item><title>I".utf8) + [0xF8, 0x80] + Array("</title><link>https://u.example/a</link></item></channel></rss>".utf8)
        let doc = try FeedParser.parse(bytes, contentType: nil, baseURL: nil)
        let t = try #require(doc.title)
        #expect(String(decoding: Array(t.utf8), as: UTF8.self) == t)
        #expect(t.hasPrefix("T"))
        #expect(doc.items.count == 1)
    }
}
