/// Byte-level clean-up of text bound for the database: removes C0/C1 controls (except newline and
/// tab, which become whitespace), bidi overrides/isolates and marks, BOMs and noncharacters, then
/// collapses whitespace. Works on UTF-8 bytes because it runs on every title and summary.
public enum TextSanitizer {
    /// One line: every whitespace run (including newlines and NBSP) becomes one space; trimmed.
    public static func inline(_ text: String) -> String {
        var t = text
        return t.withUTF8 { String(decoding: clean($0, multiline: false), as: UTF8.self) }
    }

    /// Paragraph text: spaces collapsed inside lines, at most one blank line between paragraphs.
    public static func block(_ text: String) -> String {
        var t = text
        return t.withUTF8 { String(decoding: clean($0, multiline: true), as: UTF8.self) }
    }

    static func clean(_ input: UnsafeBufferPointer<UInt8>, multiline: Bool) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(input.count)
        var pendingSpace = false
        var pendingNewlines = 0
        var i = 0
        let n = input.count

        @inline(__always) func emitPending() {
            if out.isEmpty { pendingSpace = false; pendingNewlines = 0; return }
            if pendingNewlines > 0 {
                out.append(0x0A)
                if pendingNewlines > 1 { out.append(0x0A) }
            } else if pendingSpace {
                out.append(0x20)
            }
            pendingSpace = false; pendingNewlines = 0
        }
        @inline(__always) func newline(_ count: Int) {
            if multiline { pendingNewlines = min(2, pendingNewlines + count); pendingSpace = false } else { pendingSpace = true }
        }

        while i < n {
            let b = input[i]
            if b < 0x80 {
                i += 1
                switch b {
                case 0x0A: newline(1)
                case 0x0D:
                    if i < n, input[i] == 0x0A { i += 1 }
                    newline(1)
                case 0x09, 0x20, 0x0C, 0x0B: if pendingNewlines == 0 { pendingSpace = true }
                case 0..<0x20, 0x7F: break
                default:
                    emitPending(); out.append(b)
                }
                continue
            }
            let len = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1
            guard i + len <= n, len > 1 else {
                // Stray continuation or truncated sequence: never emit invalid UTF-8.
                i += 1
                continue
            }
            let b1 = input[i + 1]
            var action = 0  // 0 keep, 1 drop, 2 space, 3 paragraph break
            if len == 2 {
                if b == 0xC2 && b1 < 0xA0 { action = 1 }            // C1 controls
                else if b == 0xC2 && b1 == 0xA0 { action = 2 }      // NBSP
                else if b == 0xD8 && b1 == 0x9C { action = 1 }      // U+061C ARABIC LETTER MARK
            } else if len == 3 {
                let b2 = input[i + 2]
                if b == 0xE2 && b1 == 0x80 {
                    switch b2 {
                    case 0x80...0x8A: action = 2                    // en/em/thin spaces
                    case 0x8E, 0x8F, 0xAA...0xAE: action = 1        // LRM/RLM, embeddings/overrides
                    case 0xA8: action = 2                           // LINE SEPARATOR
                    case 0xA9: action = 3                           // PARAGRAPH SEPARATOR
                    case 0xAF: action = 2                           // narrow NBSP
                    default: break
                    }
                } else if b == 0xE2 && b1 == 0x81 && (0xA6...0xA9).contains(b2) {
                    action = 1                                      // isolates U+2066-2069
                } else if b == 0xEF && b1 == 0xBB && b2 == 0xBF {
                    action = 1                                      // BOM / ZWNBSP
                } else if b == 0xEF && b1 == 0xBF && (b2 == 0xBE || b2 == 0xBF) {
                    action = 1                                      // noncharacters
                } else if b == 0xE3 && b1 == 0x80 && b2 == 0x80 {
                    action = 2                                      // ideographic space
                }
            }
            switch action {
            case 1: break
            case 2: if pendingNewlines == 0 { pendingSpace = true }
            case 3: newline(2)
            default:
                emitPending()
                for k in 0..<len { out.append(input[i + k]) }
            }
            i += len
        }
        return out
    }

    /// Number of Unicode scalars (what PostgreSQL counts as characters).
    static func scalarCount(_ s: String) -> Int { s.unicodeScalars.count }

    /// Cuts `text` to at most `cap` scalars. With `boundaries`, prefers (in order) the last
    /// paragraph break, sentence end, or space that keeps at least half the cap; a cut inside a
    /// sentence is marked with an ellipsis (counted in the cap).
    public static func truncate(_ text: String, cap: Int, boundaries: Bool = true) -> String {
        let scalars = text.unicodeScalars
        guard cap > 0 else { return "" }
        guard scalars.count > cap else { return text }
        let limit = boundaries ? cap - 1 : cap
        let hardEnd = scalars.index(scalars.startIndex, offsetBy: limit)
        guard boundaries else { return String(scalars[..<hardEnd]) }
        let window = Array(scalars[..<hardEnd])
        let floor = window.count / 2
        func lastIndex(where match: (Int) -> Bool) -> Int? {
            var i = window.count - 1
            while i >= floor { if match(i) { return i }; i -= 1 }
            return nil
        }
        var cut = window.count
        var ellipsis = false
        if let p = lastIndex(where: { $0 > 0 && window[$0] == "\n" && window[$0 - 1] == "\n" }) {
            cut = p - 1
        } else if let p = lastIndex(where: { i in
            let c = window[i]
            if c == "。" || c == "！" || c == "？" { return true }
            return (c == "." || c == "!" || c == "?") && i + 1 < window.count && (window[i + 1] == " " || window[i + 1] == "\n")
        }) {
            cut = p + 1
        } else if let p = lastIndex(where: { window[$0] == " " || window[$0] == "\n" }) {
            cut = p; ellipsis = true
        } else {
            ellipsis = true
        }
        var result = String(String.UnicodeScalarView(window[..<cut]))
        while let last = result.unicodeScalars.last, last == " " || last == "\n" { result.unicodeScalars.removeLast() }
        return ellipsis ? result + "…" : result
    }
}
