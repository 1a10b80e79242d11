import Testing
@testable import FeedParser

/// The sanitizer copies eight bytes at once when plainWord says the byte loop would copy each of
/// them unchanged; any disagreement would change stored text.
@Suite struct SanitizerWordScanTests {
    static func word(filler: UInt8, byte: UInt8, at position: Int) -> UInt64 {
        var w: UInt64 = 0
        for p in 0..<8 { w |= UInt64(p == position ? byte : filler) << (8 * UInt64(p)) }
        return w
    }

    static func reference(_ w: UInt64) -> Bool {
        let bytes = (0..<8).map { UInt8(truncatingIfNeeded: w >> (8 * UInt64($0))) }
        guard bytes.allSatisfy({ $0 >= 0x20 && $0 <= 0x7E }), bytes[7] != 0x20 else { return false }
        return !(0..<7).contains { bytes[$0] == 0x20 && bytes[$0 + 1] == 0x20 }
    }

    @Test func everyByteAtEveryPositionAmongFillers() {
        for filler: UInt8 in [0x20, 0x21, 0x41, 0x7E, 0x7F, 0x80, 0xC3] {
            for byte in 0...255 {
                for position in 0..<8 {
                    let w = SanitizerWordScanTests.word(filler: filler, byte: UInt8(byte), at: position)
                    #expect(TextSanitizer.plainWord(w) == Self.reference(w), "filler \(filler) byte \(byte) at \(position)")
                }
            }
        }
    }

    @Test func randomWordsOfLettersAndSpaces() {
        var generator = SystemRandomNumberGenerator()
        let interesting: [UInt8] = [0x20, 0x20, 0x20, 0x61, 0x7A, 0x21, 0x7E, 0x7F, 0x1F, 0x00, 0x0A, 0x80, 0xC3]
        for _ in 0..<200_000 {
            var w: UInt64 = 0
            for p in 0..<8 { w |= UInt64(interesting.randomElement(using: &generator)!) << (8 * UInt64(p)) }
            #expect(TextSanitizer.plainWord(w) == Self.reference(w), "\(String(w, radix: 16))")
        }
    }

    @Test func cleaningLongTextIsUnchangedByTheWordPath() {
        // Texts long enough for the word path, against the expected collapse.
        #expect(TextSanitizer.inline("The council  met on Thursday,\tand   members asked about costs.")
                == "The council met on Thursday, and members asked about costs.")
        #expect(TextSanitizer.block("abcdefgh ijklmnop  qrstuvwx\n\n\nyz0123456789 end ")
                == "abcdefgh ijklmnop qrstuvwx\n\nyz0123456789 end")
        #expect(TextSanitizer.inline("abcdefg abcdefg\u{7F}abcdefg\u{1}abcdefg") == "abcdefg abcdefgabcdefgabcdefg")
    }
}

/// SimpleHTML passes over eight bytes of text at once when plainText says the byte loop would.
@Suite struct SimpleHTMLWordScanTests {
    static func reference(_ w: UInt64) -> Bool {
        !(0..<8).contains {
            let b = UInt8(truncatingIfNeeded: w >> (8 * UInt64($0)))
            return b < 0x20 || b == 0x3C || b == 0x26 || b == 0xEF
        }
    }

    @Test func everyByteAtEveryPositionAmongFillers() {
        for filler: UInt8 in [0x20, 0x21, 0x3B, 0x3D, 0x41, 0x7F, 0x80, 0xEE, 0xF0, 0xFF] {
            for byte in 0...255 {
                for position in 0..<8 {
                    let w = SanitizerWordScanTests.word(filler: filler, byte: UInt8(byte), at: position)
                    #expect(SimpleHTML.Reader.plainText(w) == Self.reference(w), "filler \(filler) byte \(byte) at \(position)")
                }
            }
        }
    }
}

/// The walker's interned-name table: growth keeps every entry, absent keys stay absent.
@Suite struct PointerTableTests {
    @Test func thousandsOfKeysSurviveGrowth() {
        var table = PointerTable()
        let keys = (1...10_000).map { UnsafeRawPointer(bitPattern: $0 * 16)! }
        for (index, key) in keys.enumerated() { table.set(key, UInt8(index % 251)) }
        for (index, key) in keys.enumerated() { #expect(table.get(key) == UInt8(index % 251)) }
        #expect(table.get(UnsafeRawPointer(bitPattern: 8)!) == nil)
        #expect(table.get(UnsafeRawPointer(bitPattern: 10_001 * 16)!) == nil)
        table.set(keys[0], 7)
        #expect(table.get(keys[0]) == 7)
    }
}
