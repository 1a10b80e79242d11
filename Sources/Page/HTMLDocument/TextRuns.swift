import PulseModel
import TextSupport

/// Character data handed to gumbo as one placeholder code point each and put back by the
/// conversion. gumbo reads text one code point at a time, each a token through the tree builder
/// (on a small news page its text was about 45% of its parse); a placeholder is one token.
///
/// It is the same tree because a run is cut only where one placeholder is treated as the whole
/// run would be:
/// - Leading whitespace stays in gumbo's input: the insertion modes treat whitespace apart (kept
///   in `<head>`, ignored before `<html>`, dropped after `<pre>`...). From the first other
///   character, every mode does to the rest what it does to that character (insert it where the
///   first went, foster-parent the lot, or open `<body>` first), and the placeholder is such a
///   character. `<frameset>`, the one mode that keeps the whitespace inside ignored text, stops
///   the collection (`InertText`).
/// - The run holds nothing any tokenizer state gives a meaning: no `<`, `>` (ends of comments and
///   CDATA sections), `&`, and no character gumbo's input stream rewrites (`passesThroughGumbo`).
/// - It is collected only where `InertText` still trusts the pre-scan, and never inside SVG.
/// - Placeholders are private-use code points, one per run; a page with a private-use character
///   of its own (raw or as a numeric reference) is left as it is.
enum TextRuns {
    /// Shorter runs are left in: a placeholder is 3 or 4 bytes and costs a lookup.
    static let minimumLength = 8
    /// U+E000-U+F8FF, then U+F0000-U+FFFFD and U+100000-U+10FFFD (gumbo replaces U+xFFFE/F).
    static let capacity = 0x1900 + 2 * 0xFFFE

    /// The part of `run` to replace: from its first non-whitespace byte, if long enough and free
    /// of anything gumbo would read as more than text.
    static func substitutable(_ bytes: [UInt8], _ run: Range<Int>) -> Range<Int>? {
        var start = run.lowerBound
        while start < run.upperBound, isHTMLSpace(bytes[start]) { start += 1 }
        guard run.upperBound - start >= minimumLength else { return nil }
        return InertText.passesThroughGumbo(bytes, start..<run.upperBound, refusingMarkup: true) ? start..<run.upperBound : nil
    }

    static func isHTMLSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0C }

    /// The UTF-8 of placeholder `index` (< `capacity`).
    static func appendPlaceholder(_ index: Int, to out: inout [UInt8]) {
        let scalar = UInt32(index < 0x1900 ? 0xE000 + index
            : index < 0x1900 + 0xFFFE ? 0xF0000 + (index - 0x1900) : 0x100000 + (index - 0x1900 - 0xFFFE))
        if scalar < 0x10000 {
            out.append(0xE0 | UInt8(scalar >> 12))
        } else {
            out.append(0xF0 | UInt8(scalar >> 18))
            out.append(0x80 | UInt8((scalar >> 12) & 0x3F))
        }
        out.append(0x80 | UInt8((scalar >> 6) & 0x3F))
        out.append(0x80 | UInt8(scalar & 0x3F))
    }

    /// The placeholder index of the private-use scalar starting at `index`, and its length.
    static func placeholder(in bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> (index: Int, length: Int)? {
        let (scalar, next) = TextScan.scalar(at: index, in: bytes)
        let length = next - index
        switch scalar {
        case 0xE000...0xF8FF: return (Int(scalar) - 0xE000, length)
        case 0xF0000...0xFFFFD: return (Int(scalar) - 0xF0000 + 0x1900, length)
        case 0x100000...0x10FFFD: return (Int(scalar) - 0x100000 + 0x1900 + 0xFFFE, length)
        default: return nil
        }
    }

    /// Whether the page already holds a private-use character, raw or as a numeric character
    /// reference (`&#xE000;`, `&#57344`): gumbo would hand it over like a placeholder.
    static func containsPrivateUse(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return false }
            var index = 0
            while index < buffer.count {
                // Eight bytes at a time while they are ASCII without `&` (a byte loop here was 1% of
                // a small page's extraction).
                while index + 8 <= buffer.count {
                    let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
                    let ampersands = word ^ 0x2626_2626_2626_2626
                    let hasAmpersand = (ampersands &- 0x0101_0101_0101_0101) & ~ampersands & 0x8080_8080_8080_8080 != 0
                    guard word & 0x8080_8080_8080_8080 == 0, !hasAmpersand else { break }
                    index += 8
                }
                guard index < buffer.count else { break }
                let byte = buffer[index]
                if byte == 0x26, index + 1 < buffer.count, buffer[index + 1] == 0x23,
                   isPrivateUse(numericReference(buffer, from: index + 2)) {
                    return true
                }
                if byte >= 0xEE {
                    let (scalar, next) = TextScan.scalar(at: index, in: buffer)
                    if isPrivateUse(scalar) { return true }
                    index = next
                    continue
                }
                index += 1
            }
            return false
        }
    }

    static func isPrivateUse(_ scalar: UInt32) -> Bool {
        (0xE000...0xF8FF).contains(scalar) || scalar >= 0xF0000
    }

    /// The value of the digits after `&#` (hexadecimal after `x`/`X`), saturating: what the
    /// tokenizer would decode, before its own replacements (which never give private use).
    private static func numericReference(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> UInt32 {
        var index = start
        var hex = false
        if index < bytes.count, bytes[index] | 0x20 == 0x78 { hex = true; index += 1 }
        var value: UInt32 = 0
        while index < bytes.count {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case 0x30...0x39: digit = UInt32(byte - 0x30)
            case 0x41...0x46 where hex, 0x61...0x66 where hex: digit = UInt32(byte | 0x20) - 0x61 + 10
            default: return value
            }
            value = min(value * (hex ? 16 : 10) + digit, 0x11_0000)
            index += 1
        }
        return value
    }
}
