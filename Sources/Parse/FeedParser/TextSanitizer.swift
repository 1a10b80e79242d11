import Glibc

/// Byte-level clean-up of text bound for the database: removes C0/C1 controls (except newline and
/// tab, which become whitespace), bidi embeddings/overrides/isolates (the LRM, RLM and ALM marks
/// are kept: see PulseModel's StoredText), BOMs and noncharacters, then
/// collapses whitespace. Works on UTF-8 bytes because it runs on every title and summary.
public enum TextSanitizer {
    /// One line: every whitespace run (including newlines and NBSP) becomes one space; trimmed.
    public static func inline(_ text: String) -> String {
        cleanString(text, multiline: false)
    }

    /// Paragraph text: spaces collapsed inside lines, at most one blank line between paragraphs.
    public static func block(_ text: String) -> String {
        cleanString(text, multiline: true)
    }

    /// `html`: source newlines are plain whitespace; 0x1E / 0x1F mark paragraph / line breaks.
    static func cleanString(_ input: UnsafeBufferPointer<UInt8>, multiline: Bool, html: Bool = false) -> String {
        guard !input.isEmpty else { return "" }
        // Written straight into the String, whose capacity is the bound outputCapacity gives.
        return String(unsafeUninitializedCapacity: outputCapacity(input, html: html)) { out in
            clean(input, multiline: multiline, html: html, into: out).count
        }
    }

    /// The most bytes `clean` can write for `input`. Plain text never grows: every whitespace or
    /// line-break run, one byte or more, is written as at most two bytes only when it is at least
    /// that long (CR LF and U+2029 included). In html mode a lone 0x1E between two words becomes a
    /// blank line, one byte in and two out (`<span>a</span><div>b</div>c` gives a, 1E, b, 1E, c:
    /// five bytes in, seven out), so each 0x1E may add one byte.
    static func outputCapacity(_ input: UnsafeBufferPointer<UInt8>, html: Bool) -> Int {
        guard html, let base = input.baseAddress else { return input.count }
        var extra = 0
        var at = base
        let end = base + input.count
        while at < end, let hit = memchr(at, 0x1E, end - at) {
            extra += 1
            at = UnsafePointer(hit.assumingMemoryBound(to: UInt8.self)) + 1
        }
        return input.count + extra
    }

    /// Like cleanString, but returns `original` itself (no new allocation) when nothing changes,
    /// which is the common case for titles and plain descriptions.
    static func cleanString(_ original: String, multiline: Bool) -> String {
        var s = original
        return s.withUTF8 { input -> String in
            guard !input.isEmpty else { return "" }
            if input.count <= 256 {
                return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: input.count) { out in
                    let r = clean(input, multiline: multiline, html: false, into: out)
                    if r.count == input.count && !r.replaced { return original }
                    return String(decoding: UnsafeBufferPointer(rebasing: out[0..<r.count]), as: UTF8.self)
                }
            }
            var result: (count: Int, replaced: Bool) = (0, false)
            let cleaned = String(unsafeUninitializedCapacity: input.count) { out in
                result = clean(input, multiline: multiline, html: false, into: out)
                return result.count
            }
            return result.count == input.count && !result.replaced ? original : cleaned
        }
    }

    static func clean(_ input: UnsafeBufferPointer<UInt8>, multiline: Bool) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: input.count) { out, count in
            count = clean(input, multiline: multiline, html: false, into: out).count
        }
    }

    /// Writes the cleaned bytes to `out` (capacity >= `outputCapacity(input, html:)`); returns the count.
    /// `unchanged` is true when the output equals the input byte for byte (the output is never
    /// longer, so equal length plus no same-length substitution means identical).
    static func clean(_ input: UnsafeBufferPointer<UInt8>, multiline: Bool, html: Bool,
                      into out: UnsafeMutableBufferPointer<UInt8>) -> (count: Int, replaced: Bool) {
        var o = 0
        var replaced = false
        var pendingSpace = false
        var pendingNewlines = 0
        var i = 0
        let n = input.count
        while i < n {
            let b = input[i]
            if b > 0x20 && b < 0x7F {
                // Printable ASCII run: the common case, copied without classification.
                flushSeparator(out, &o, &pendingSpace, &pendingNewlines)
                var j = i
                while j < n {
                    // Eight bytes at a time while they are printable ASCII with single spaces (see
                    // plainWord): copied as they are. The byte written last is never a space here.
                    if j + 8 <= n {
                        let w = UnsafeRawPointer(input.baseAddress! + j).loadUnaligned(as: UInt64.self)
                        if plainWord(w) {
                            UnsafeMutableRawPointer(out.baseAddress! + o).storeBytes(of: w, as: UInt64.self)
                            o += 8; j += 8
                            continue
                        }
                    }
                    let c = input[j]
                    if c > 0x20 && c < 0x7F { out[o] = c; o += 1; j += 1; continue }
                    // A single space between words needs no bookkeeping either.
                    if c == 0x20, j + 1 < n, input[j + 1] > 0x20, input[j + 1] < 0x7F {
                        out[o] = 0x20; out[o + 1] = input[j + 1]; o += 2; j += 2; continue
                    }
                    break
                }
                i = j
                continue
            }
            var len = 1
            var action = 0  // 0 keep, 1 drop, 2 space, 3 line break, 4 paragraph break
            if b < 0x80 {
                switch b {
                case 0x0A where html, 0x0D where html: action = 2
                case 0x1E where html: action = 4
                case 0x1F where html: action = 3
                case 0x0A: action = 3
                case 0x0D:
                    if i + 1 < n, input[i + 1] == 0x0A { len = 2 }
                    action = 3
                case 0x09, 0x20, 0x0C, 0x0B: action = 2
                case 0..<0x20, 0x7F: action = 1
                default: break
                }
            } else {
                len = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1
                if len == 1 || i + len > n {
                    // Stray continuation or truncated sequence: never emit invalid UTF-8.
                    len = 1; action = 1
                } else {
                    let b1 = input[i + 1]
                    if len == 2 {
                        if b == 0xC2 && b1 < 0xA0 { action = 1 }            // C1 controls
                        else if b == 0xC2 && b1 == 0xA0 { action = 2 }      // NBSP
                    } else if len == 3 {
                        let b2 = input[i + 2]
                        if b == 0xE2 && b1 == 0x80 {
                            switch b2 {
                            case 0x80...0x8A, 0xA8, 0xAF: action = 2        // typographic spaces, LS, narrow NBSP
                            case 0xAA...0xAE: action = 1                    // embeddings/overrides (LRM/RLM kept)
                            case 0xA9: action = 4                           // PARAGRAPH SEPARATOR
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
                }
            }
            switch action {
            case 0:
                flushSeparator(out, &o, &pendingSpace, &pendingNewlines)
                for k in 0..<len { out[o + k] = input[i + k] }
                o += len
            case 2:
                if pendingNewlines == 0 { pendingSpace = true }
                if b != 0x20 { replaced = true }
            case 3, 4:
                if b != 0x0A || !multiline || html { replaced = true }
                if multiline {
                    pendingNewlines = min(2, pendingNewlines + (action == 4 ? 2 : 1)); pendingSpace = false
                } else {
                    pendingSpace = true
                }
            default:
                break
            }
            i += len
        }
        return (o, replaced)
    }

    /// Writes the separator owed before the next kept byte (none at the start of the output).
    @inline(__always)
    private static func flushSeparator(_ out: UnsafeMutableBufferPointer<UInt8>, _ o: inout Int,
                                       _ pendingSpace: inout Bool, _ pendingNewlines: inout Int) {
        if o > 0 {
            if pendingNewlines > 0 {
                out[o] = 0x0A; o += 1
                if pendingNewlines > 1 { out[o] = 0x0A; o += 1 }
            } else if pendingSpace {
                out[o] = 0x20; o += 1
            }
        }
        pendingSpace = false; pendingNewlines = 0
    }

    /// True when all eight bytes are 0x20...0x7E, no two spaces are adjacent and the last byte is
    /// not a space: exactly the bytes the run loop would copy one by one (a space is kept when a
    /// printable byte follows it).
    @inline(__always)
    static func plainWord(_ w: UInt64) -> Bool {
        if (w & WordBytes.high) | WordBytes.some(w, below: 0x20) | WordBytes.some(w, equalTo: 0x7F) != 0 { return false }
        let spaces = WordBytes.each(w, equalTo: 0x20)
        return spaces & (spaces >> 8) == 0 && spaces & (0x80 << 56) == 0
    }

    /// Cuts `text` to at most `cap` scalars. With `boundaries`, prefers (in order) the last
    /// paragraph break, sentence end, or space that keeps at least half the cap; a cut inside a
    /// sentence is marked with an ellipsis (counted in the cap).
    public static func truncate(_ text: String, cap: Int, boundaries: Bool = true) -> String {
        guard cap > 0 else { return "" }
        if text.utf8.count <= cap { return text }  // bytes >= scalars: fast path
        let scalars = text.unicodeScalars
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
