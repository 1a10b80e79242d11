import Glibc

/// Byte-level repairs that let damaged documents parse without libxml2's recovery mode, or at
/// least with its damage kept local. Input and output are UTF-8.
enum DocumentRepair {
    /// Where the document proper starts. Two thirds of the "broken" feeds seen in the wild were
    /// only preceded by something: whitespace or a blank line before `<?xml` (an XML error), a BOM
    /// after whitespace, or PHP warnings/notices printed before the document (plain text, or
    /// PHP's HTML form `<br />\n<b>Warning</b>: ...`). Skipping it lets the strict pass read them.
    static func documentStart(_ s: UnsafeBufferPointer<UInt8>) -> Int {
        let n = s.count
        var i = 0
        while i < n {
            if isSpace(s[i]) { i += 1; continue }
            if i + 2 < n, s[i] == 0xEF, s[i + 1] == 0xBB, s[i + 2] == 0xBF { i += 3; continue }
            break
        }
        guard i < n else { return 0 }
        if s[i] == UInt8(ascii: "<"), !startsPHPMarkup(s, i) { return i }
        // Junk: look for the XML declaration, else for a known feed root, in the first 64 KB.
        let window = min(n, i + 64 * 1024)
        var j = i
        var root: Int?
        while j < window, let base = s.baseAddress,
              let hit = memchr(base + j, 0x3C, window - j) {
            let at = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
            if starts(s, at, "<?xml") { return at }
            if root == nil, opensFeedRoot(s, at) { root = at }
            j = at + 1
        }
        return root ?? i
    }

    /// The first line (at most 40 characters) of a document that does not start with `<` after
    /// whitespace and a BOM; nil when it does.
    static func leadingText(_ bytes: [UInt8]) -> String? {
        var i = 0
        while i < bytes.count, isSpace(bytes[i]) || bytes[i] == 0xEF || bytes[i] == 0xBB || bytes[i] == 0xBF { i += 1 }
        guard i < bytes.count, bytes[i] != UInt8(ascii: "<") else { return nil }
        // At most 40 bytes are looked at, whatever the document's size.
        let line = bytes[i...].prefix(40).prefix { $0 != 0x0A && $0 != 0x0D }
        return TextSanitizer.inline(String(decoding: line, as: UTF8.self))
    }

    /// `<br`, `<b>`, `<b ` or `</`: what PHP's html_errors output starts with, never a feed.
    private static func startsPHPMarkup(_ s: UnsafeBufferPointer<UInt8>, _ i: Int) -> Bool {
        guard i + 2 < s.count else { return false }
        let a = s[i + 1] | 0x20, b = s[i + 2]
        return s[i + 1] == UInt8(ascii: "/") || (a == UInt8(ascii: "b") && (b | 0x20 == UInt8(ascii: "r") || b == 0x3E || isSpace(b)))
    }

    private static func opensFeedRoot(_ s: UnsafeBufferPointer<UInt8>, _ i: Int) -> Bool {
        var j = i + 1
        while j < s.count, j - i < 64, !isSpace(s[j]), s[j] != 0x3E, s[j] != 0x2F { j += 1 }
        var name = Array(s[(i + 1)..<j])
        if let colon = name.lastIndex(of: 0x3A) { name = Array(name[(colon + 1)...]) }
        return ["rss", "feed", "RDF", "entry"].contains { Array($0.utf8) == name }
    }

    /// Balances the element structure so that one unclosed or stray tag damages only the element
    /// it sits in. libxml2's recovery pops one element per end tag whatever its name, so a single
    /// unclosed `<b>` in one title used to nest every later item inside that one (and lose them).
    /// Here an end tag closes the innermost open element of its name (closing what is open above
    /// it), an end tag with no open element of its name is dropped, a `<` that opens no tag is
    /// escaped, and a truncated document is closed (an unterminated tag at the end is dropped).
    static func balanceTags(_ s: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(s.count + 256)
        var stack: [[UInt8]] = []
        let n = s.count
        var i = 0
        scan: while i < n {
            guard let base = s.baseAddress, let hit = memchr(base + i, 0x3C, n - i) else {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: s[i...]))
                break
            }
            let lt = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
            out.append(contentsOf: UnsafeBufferPointer(rebasing: s[i..<lt]))
            i = lt
            // Sections copied whole; unterminated at the end of a truncated document: dropped.
            for (open, close) in sections where starts(s, i, open) {
                guard let end = find(s, close, from: i + open.utf8CodeUnitCount) else { break scan }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: s[i..<(end + close.utf8CodeUnitCount)]))
                i = end + close.utf8CodeUnitCount
                continue scan
            }
            if starts(s, i, "<!") {  // DOCTYPE, with its internal subset in brackets
                var j = i + 2, brackets = 0
                while j < n, !(s[j] == 0x3E && brackets == 0) {
                    if s[j] == 0x5B { brackets += 1 } else if s[j] == 0x5D { brackets -= 1 }
                    j += 1
                }
                guard j < n else { break scan }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: s[i...j]))
                i = j + 1
                continue
            }
            let closing = i + 1 < n && s[i + 1] == 0x2F
            let nameStart = closing ? i + 2 : i + 1
            guard nameStart < n, isNameStart(s[nameStart]) else {
                guard nameStart < n else { break }
                out.append(contentsOf: Array("&#60;".utf8))  // a bare `<` in text
                i += 1
                continue
            }
            var nameEnd = nameStart
            while nameEnd < n, !isSpace(s[nameEnd]), s[nameEnd] != 0x3E, s[nameEnd] != 0x2F { nameEnd += 1 }
            // End of the tag, skipping quoted attribute values.
            var j = nameEnd
            var quote: UInt8 = 0
            while j < n {
                let c = s[j]
                if quote != 0 { if c == quote { quote = 0 } } else if c == 0x22 || c == 0x27 { quote = c } else if c == 0x3E { break }
                j += 1
            }
            guard j < n else { break }  // truncated inside a tag
            let name = Array(s[nameStart..<nameEnd])
            if closing {
                // Only the innermost `searchDepth` open elements are searched: deeper documents are
                // refused by the walker anyway, and a hostile run of stray end tags under a deep
                // stack must not make this quadratic.
                if let k = stack[max(0, stack.count - searchDepth)...].lastIndex(of: name) {
                    while stack.count > k + 1 { appendEndTag(stack.removeLast(), to: &out) }
                    stack.removeLast()
                    out.append(contentsOf: UnsafeBufferPointer(rebasing: s[i...j]))
                }
            } else {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: s[i...j]))
                if s[j - 1] != 0x2F { stack.append(name) }
            }
            i = j + 1
        }
        while let name = stack.popLast() { appendEndTag(name, to: &out) }
        return out
    }

    private static let searchDepth = 256

    private static let sections: [(StaticString, StaticString)] = [("<!--", "-->"), ("<![CDATA[", "]]>"), ("<?", "?>")]

    private static func appendEndTag(_ name: [UInt8], to out: inout [UInt8]) {
        out.append(0x3C); out.append(0x2F); out.append(contentsOf: name); out.append(0x3E)
    }

    static func starts(_ s: UnsafeBufferPointer<UInt8>, _ i: Int, _ p: StaticString) -> Bool {
        let count = p.utf8CodeUnitCount
        guard i + count <= s.count else { return false }
        let bytes = p.utf8Start
        for k in 0..<count where s[i + k] != bytes[k] { return false }
        return true
    }

    static func find(_ s: UnsafeBufferPointer<UInt8>, _ p: StaticString, from: Int) -> Int? {
        var j = from
        while j + p.utf8CodeUnitCount <= s.count {
            if starts(s, j, p) { return j }
            j += 1
        }
        return nil
    }

    @inline(__always) static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }
    @inline(__always) private static func isNameStart(_ c: UInt8) -> Bool {
        ((c | 0x20) >= 97 && (c | 0x20) <= 122) || c == UInt8(ascii: "_") || c == UInt8(ascii: ":") || c >= 0x80
    }
}
