import TextSupport
import Testing
import PulseModel
@testable import Readability

/// The byte-level shortcuts added for speed read page text, which is untrusted. Each is linear in
/// its input on the worst shape of that input; these build those shapes (a megabyte each) and
/// check the answers. Times were measured by hand, never asserted.
@Suite struct ByteShortcutWorstInputTests {
    static let size = 1 << 20

    @Test func base64MarkerSearchOnNearMisses() {
        // Every position starts "base6" and fails on the sixth byte: five comparisons a byte.
        let nearMisses = String(repeating: "base6", count: Self.size / 5)
        #expect(Extractor.base64PayloadLength("data:image/png;" + nearMisses) == nil)
        #expect(Extractor.base64PayloadLength(nearMisses + "base64,AAAA") == 4)  // "base64,AAAA": four bytes after the marker and its comma
    }

    @Test func cleanTextScanOnLongRuns() {
        let spaced = String(repeating: "a ", count: Self.size / 2)
        #expect(TextScan.withBytes(spaced, TextCleaning.isClean) == false)  // the trailing space
        #expect(TextCleaning.clean(spaced) == String(spaced.dropLast()))
        let wide = String(repeating: "ä", count: Self.size / 2)
        #expect(TextCleaning.clean(wide) == wide)
    }

    @Test func titleCollapseOnWhitespace() {
        let blanks = String(repeating: " \t", count: Self.size / 2) + "x"
        #expect(Extractor.collapsedASCII(blanks, separator: { $0 == 0x20 || $0 == 0x09 }) == "x")
    }

    @Test func prefixListsReadOnlyThePrefix() {
        // A megabyte that starts like a call to action but is not one: only the first bytes are read.
        let text = "read mor" + String(repeating: "x", count: Self.size)
        #expect(!Extractor.callToActionLines.matchStart(of: text))
    }

    @Test func dateLineSplitOnALongLine() {
        let line = String(repeating: "1 ", count: Self.size / 2)
        #expect(!Extractor.isDateLine(line))  // too many words
        #expect(!Extractor.containsISODate(String(repeating: "2024-", count: Self.size / 5)))
    }
}
