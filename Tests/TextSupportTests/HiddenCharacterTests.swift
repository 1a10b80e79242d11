import Testing
import TextSupport

/// The one list of hidden characters, written out once: every cleaning and refusing rule of the
/// project asks `HiddenCharacter` (stored text and URLs, config values, logs, systemd's STATUS).
@Suite struct HiddenCharacterTests {
    @Test func theSetByKind() {
        let expected: [HiddenCharacter: [ClosedRange<UInt32>]] = [
            .lineBreak: [0x0A...0x0A, 0x0D...0x0D, 0x85...0x85, 0x2028...0x2029],
            .control: [0x00...0x09, 0x0B...0x0C, 0x0E...0x1F, 0x7F...0x84, 0x86...0x9F],
            .directionMark: [0x061C...0x061C, 0x200E...0x200F],
            .reordering: [0x202A...0x202E, 0x2066...0x2069],
            .invisible: [0x200B...0x200D, 0xFEFF...0xFEFF, 0xFFFE...0xFFFF],
        ]
        var listed = Set<UInt32>()
        for (kind, ranges) in expected {
            for range in ranges {
                for value in range {
                    #expect(HiddenCharacter.kind(value) == kind, "U+\(String(value, radix: 16))")
                    listed.insert(value)
                }
            }
        }
        // Nothing else below U+10000 is hidden.
        for value in UInt32(0)..<0x10000 where !listed.contains(value) {
            if HiddenCharacter.kind(value) != nil { Issue.record("U+\(String(value, radix: 16)) is hidden but not listed") }
        }
        #expect(HiddenCharacter.kind(UInt32(0x20)) == nil && HiddenCharacter.kind(UInt32(0xA0)) == nil)
    }
}
