import Testing
import WebText

@Suite("WebText")
struct WebTextTests {
    @Test func namedEntitiesFromTheOneTable() {
        #expect(HTMLEntities.codePoint("acirc") == 0xE2)
        #expect(HTMLEntities.codePoint("nbsp") == 0xA0)
        #expect(HTMLEntities.codePoint("apos") == 39)
        #expect(HTMLEntities.codePoint("bogus") == nil)
        #expect(HTMLEntities.decode("Tom &amp;amp; Jerry &hellip; &#233;t&#xE9; &nope; &") == "Tom &amp; Jerry … été &nope; &")
        #expect(HTMLEntities.decode("&#0;") == "\u{FFFD}")
    }

    @Test func charsetEvidence() {
        #expect(Charset.byteOrderMark([0xEF, 0xBB, 0xBF, 0x3C])! == ("utf-8", 3))
        #expect(Charset.byteOrderMark([0xFF, 0xFE, 0x3C, 0x00])! == ("utf-16le", 2))
        #expect(Charset.byteOrderMark([0xFF, 0xFE, 0x00, 0x00])! == ("utf-32le", 4))
        #expect(Charset.byteOrderMark([0x3C, 0x3F]) == nil)
        #expect(Charset.parameter("text/xml; charset=\"ISO-8859-1\"") == "iso-8859-1")
        #expect(Charset.parameter("text/html;charset = shift_jis ;x=y") == "shift_jis")
        #expect(Charset.parameter("text/html") == nil)
        #expect(Charset.normalize(" Latin1 ") == "windows-1252")
        #expect(Charset.normalize("koi8-r") == nil)
        #expect(Windows1252.decode([0x80, 0x41, 0x81]) == "\u{20AC}A\u{81}")
    }
}
