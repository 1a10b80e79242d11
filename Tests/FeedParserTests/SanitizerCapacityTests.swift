import Testing
@testable import FeedParser

/// TextSanitizer writes straight into a String's storage, so its output bound is a memory-safety
/// matter: html mode's paragraph marks once wrote past the end (`<span>a</span><div>b</div>c`,
/// five bytes in and seven out). Debug builds check every write, so an overrun fails here.
@Suite struct SanitizerCapacityTests {
    @Test func loneParagraphMarksBetweenWordsBecomeBlankLines() {
        let e = HTMLText.extract("<span>a</span><div>b</div>c<div>d</div>e")
        #expect(e.text == "a\n\nb\n\nc\n\nd\n\ne")
        #expect(HTMLText.extract("<b>x</b><hr>y<p>z</p>w").text == "x\n\ny\n\nz\n\nw")
    }

    @Test func randomMarkerAndWhitespaceRunsStayWithinTheBound() {
        let alphabet: [[UInt8]] = [[0x61], [0x62], [0x1E], [0x1F], [0x20], [0x0A], [0x0D], [0x09], [0x01],
                                   [0xC2, 0xA0], [0xE2, 0x80, 0xA9], [0xE2, 0x80, 0xA8], [0xC3, 0xA9]]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            var input: [UInt8] = []
            for _ in 0..<Int.random(in: 1...40, using: &generator) { input += alphabet.randomElement(using: &generator)! }
            for html in [true, false] {
                for multiline in [true, false] {
                    input.withUnsafeBufferPointer { bytes in
                        let capacity = TextSanitizer.outputCapacity(bytes, html: html)
                        let written = [UInt8](unsafeUninitializedCapacity: capacity) { out, count in
                            count = TextSanitizer.clean(bytes, multiline: multiline, html: html, into: out).count
                        }
                        #expect(written.count <= capacity)
                        #expect(String(validating: written, as: UTF8.self) != nil)
                        _ = TextSanitizer.cleanString(bytes, multiline: multiline, html: html)
                    }
                }
            }
        }
    }
}
