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
        // Every label the decoder knows, and its canonical name.
        let labels: [String: String] = [
            "utf-8": "utf-8", "utf8": "utf-8", "unicode-1-1-utf-8": "utf-8", "x-unicode20utf8": "utf-8",
            "us-ascii": "windows-1252", "ascii": "windows-1252", "iso-8859-1": "windows-1252",
            "iso8859-1": "windows-1252", "iso_8859-1": "windows-1252", "latin1": "windows-1252", "latin-1": "windows-1252",
            "l1": "windows-1252", "cp1252": "windows-1252", "windows-1252": "windows-1252",
            "x-cp1252": "windows-1252", "cp819": "windows-1252", "ibm819": "windows-1252",
            "iso-ir-100": "windows-1252", "csisolatin1": "windows-1252",
            "utf-16": "utf-16le", "utf-16le": "utf-16le", "utf-16be": "utf-16be",
            "iso-8859-2": "iso-8859-2", "latin2": "iso-8859-2", "windows-1250": "windows-1250",
            "cp1250": "windows-1250", "windows-1251": "windows-1251", "cp1251": "windows-1251",
            "windows-1253": "windows-1253", "windows-1254": "windows-1254",
            "shift_jis": "shift_jis", "shift-jis": "shift_jis", "sjis": "shift_jis",
            "x-sjis": "shift_jis", "euc-jp": "euc-jp", "iso-2022-jp": "iso-2022-jp",
        ]
        for (label, name) in labels {
            #expect(Charset.normalize(label) == name)
            #expect(Charset.normalize("\t\"" + label.uppercased() + "' \n") == name)
        }
        #expect(Charset.normalize("utf-8x") == nil && Charset.normalize("") == nil)
        #expect(Charset.normalize("koi8-r") == nil)
        #expect(Windows1252.decode([0x80, 0x41, 0x81]) == "\u{20AC}A\u{81}")
    }
}
