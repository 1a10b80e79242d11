import Foundation
import Testing
@testable import HTMLDocument

struct CharsetTests {
    func bodyText(_ document: HTMLDocument) -> String {
        document.body.map { document.textContent(of: $0) } ?? ""
    }

    @Test func httpHeaderCharsetWins() throws {
        let bytes: [UInt8] = Array("<html><head><meta charset=utf-8></head><body>caf".utf8) + [0xE9] + Array("</body></html>".utf8)
        let document = try HTMLDocument.parse(bytes, contentType: "text/html; charset=ISO-8859-1")
        #expect(document.encoding == "windows-1252")
        #expect(bodyText(document) == "café")
    }

    @Test func latin1ClaimIsDecodedAsWindows1252() throws {
        // 0x93/0x94 are curly quotes in windows-1252 but C1 controls in true latin-1.
        let bytes: [UInt8] = Array("<meta charset=\"iso-8859-1\"><p>".utf8) + [0x93, 0x68, 0x69, 0x94] + Array("</p>".utf8)
        let document = try HTMLDocument.parse(bytes)
        #expect(bodyText(document) == "\u{201C}hi\u{201D}")
    }

    @Test func byteOrderMarkBeatsHeader() throws {
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("<p>na\u{EF}ve</p>".utf8)
        let document = try HTMLDocument.parse(bytes, contentType: "text/html; charset=windows-1252")
        #expect(document.encoding == "utf-8")
        #expect(bodyText(document) == "na\u{EF}ve")
    }

    @Test func utf16LittleEndianBOM() throws {
        var bytes: [UInt8] = [0xFF, 0xFE]
        for unit in "<p>hé</p>".utf16 { bytes += [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        let document = try HTMLDocument.parse(bytes)
        #expect(document.encoding == "utf-16le")
        #expect(bodyText(document) == "hé")
    }

    @Test func httpEquivMetaPastFirstKilobyte() throws {
        let padding = "<script>" + String(repeating: "var x = 1;\n", count: 300) + "</script>"
        let head = "<html><head>\(padding)<meta http-equiv=\"Content-Type\" content=\"text/html; charset=windows-1252\"></head><body>"
        let bytes: [UInt8] = Array(head.utf8) + [0x80] + Array("</body></html>".utf8)
        #expect(head.utf8.count > 1024)
        let document = try HTMLDocument.parse(bytes)
        #expect(document.encoding == "windows-1252")
        #expect(bodyText(document) == "€")
    }

    @Test func metaInsideCommentIsIgnored() {
        let bytes = Array("<!-- <meta charset=windows-1252> --><meta charset=utf-8>".utf8)
        #expect(CharsetDetection.detect(bytes, contentType: nil) == "utf-8")
    }

    @Test func invalidUTF8IsRepaired() throws {
        let bytes: [UInt8] = Array("<meta charset=utf-8><p>ok ".utf8) + [0xC3, 0xA9, 0xFF, 0xFE] + Array(" end</p>".utf8)
        let document = try HTMLDocument.parse(bytes)
        #expect(bodyText(document) == "ok é\u{FFFD}\u{FFFD} end")
    }

    @Test func unlabelledLegacyBytesGuessWindows1252() throws {
        let bytes: [UInt8] = Array("<p>Gr".utf8) + [0xFC] + Array("n</p>".utf8)
        let document = try HTMLDocument.parse(bytes)
        #expect(document.encoding == "windows-1252")
        #expect(bodyText(document) == "Grün")
    }

    @Test func unknownLabelFallsBackToUTF8() throws {
        let document = try HTMLDocument.parse(Array("<p>plain é</p>".utf8), contentType: "text/html; charset=x-klingon")
        #expect(bodyText(document) == "plain é")
    }

    @Test func charsetParameterParsing() {
        #expect(CharsetDetection.charsetParameter("text/html; charset=\"UTF-8\"") == "utf-8")
        #expect(CharsetDetection.charsetParameter("text/html;charset = shift_jis ;x=y") == "shift_jis")
        #expect(CharsetDetection.charsetParameter("text/html") == nil)
    }
}

/// Pages in the labels decoded through iconv: bytes it cannot convert are skipped one at a time,
/// so the worst input (every byte invalid) costs one iconv call per byte and never more output
/// than input. Before (Foundation's decoding), such a page fell back to UTF-8 whole.
@Suite struct IconvWorstInputTests {
    @Test(arguments: ["shift_jis", "euc-jp", "iso-2022-jp", "utf-16le", "windows-1251"])
    func aMegabyteOfInvalidBytesDecodesWithoutGrowing(label: String) {
        // 0xFF is invalid in the Japanese encodings; lone low surrogates (00 DC) in UTF-16LE.
        let bytes: [UInt8] = label == "utf-16le" ? Array([0x00, 0xDC].repeated(500_000)) : [UInt8](repeating: 0xFF, count: 1_000_000)
        let text = CharsetDetection.decode(bytes, label: label)
        #expect(text.utf8.count <= 3 * bytes.count)
        if label == "windows-1251" { #expect(text.unicodeScalars.first == "я") }  // 0xFF is valid there
    }

    @Test func validTextAroundInvalidBytesIsKept() {
        let bytes: [UInt8] = [0x82, 0xA0, 0xFF, 0x82, 0xA2]  // あ, an invalid byte, い in Shift_JIS
        #expect(CharsetDetection.decode(bytes, label: "shift_jis") == "あい")
    }
}

private extension Array {
    func repeated(_ times: Int) -> [Element] { Array((0..<times).map { _ in self }.joined()) }
}
