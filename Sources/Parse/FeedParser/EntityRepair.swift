internal import WebText

/// Entity repair for documents that are not well-formed. A bare `&` becomes `&amp;`; an HTML
/// named entity (`&nbsp;`, `&eacute;`, `&acirc;`: WebText's HTMLEntities) becomes a
/// numeric reference; an unknown name becomes literal text when the document declares no
/// entities itself. C0 control characters (never legal in XML 1.0) are removed. CDATA sections and
/// comments are left alone.
///
/// The five predefined entities are rewritten as numeric references as well (`&amp;` ->
/// `&#38;`), and that is the fix for the recovery pass losing them: libxml2's xmlParseReference
/// returns without emitting anything for a named reference once `ctxt->wellFormed` is 0, i.e. after
/// the first error of a RECOVER parse, while character references take another branch that has
/// no such check. That is how "Red, Whine, &amp; Blue" became "Red, Whine, Blue" and
/// `?a=1&amp;b=2` became `?a=1b=2` in every item after the first fault.
enum EntityRepair {
    /// The repaired bytes, and whether anything besides the predefined entities was rewritten
    /// (when not, the document is as broken as before and a strict re-parse is pointless).
    static func repair(_ s: UnsafeBufferPointer<UInt8>) -> (bytes: [UInt8], changed: Bool) {
        var out: [UInt8] = []
        out.reserveCapacity(s.count + s.count / 16)
        var changed = false
        let declaresEntities = DocumentRepair.find(s, "<!ENTITY", from: 0) != nil
        let n = s.count
        var i = 0
        while i < n {
            let b = s[i]
            if b == UInt8(ascii: "<"), let skipEnd = opaqueSectionEnd(s, i) {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: s[i..<skipEnd]))
                i = skipEnd
                continue
            }
            if b < 0x20, b != 0x09, b != 0x0A, b != 0x0D { changed = true; i += 1; continue }
            guard b == UInt8(ascii: "&") else { out.append(b); i += 1; continue }
            i += 1
            // Numeric reference: keep if well-formed.
            if i < n, s[i] == UInt8(ascii: "#") {
                var j = i + 1
                let hex = j < n && (s[j] | 0x20) == UInt8(ascii: "x")
                if hex { j += 1 }
                let digitsStart = j
                while j < n, isDigit(s[j]) || (hex && isHex(s[j])) { j += 1 }
                if j > digitsStart, j < n, s[j] == UInt8(ascii: ";") {
                    out.append(UInt8(ascii: "&"))
                    out.append(contentsOf: UnsafeBufferPointer(rebasing: s[i...j]))
                    i = j + 1
                } else {
                    out.append(contentsOf: Array("&#38;".utf8))
                    changed = true
                }
                continue
            }
            var j = i
            while j < n, j - i < 32, isNameByte(s[j]) { j += 1 }
            guard j > i, j < n, s[j] == UInt8(ascii: ";") else {
                out.append(contentsOf: Array("&#38;".utf8))
                changed = true
                continue
            }
            let name = Array(s[i..<j])
            if let code = predefinedCode(name) {
                out.append(contentsOf: Array("&#\(code);".utf8))
            } else if let code = htmlEntityCode(name) {
                out.append(contentsOf: Array("&#\(code);".utf8))
                changed = true
            } else if declaresEntities {
                out.append(UInt8(ascii: "&"))
                out.append(contentsOf: name)
                out.append(UInt8(ascii: ";"))
            } else {
                out.append(contentsOf: Array("&#38;".utf8))
                out.append(contentsOf: name)
                out.append(UInt8(ascii: ";"))
                changed = true
            }
            i = j + 1
        }
        return (out, changed)
    }

    /// End (exclusive) of a CDATA section or comment starting at `i`, or nil.
    private static func opaqueSectionEnd(_ s: UnsafeBufferPointer<UInt8>, _ i: Int) -> Int? {
        let terminator: StaticString
        if DocumentRepair.starts(s, i, "<![CDATA[") { terminator = "]]>" } else if DocumentRepair.starts(s, i, "<!--") {
            terminator = "-->"
        } else { return nil }
        guard let end = DocumentRepair.find(s, terminator, from: i + 4) else {
            return s.count  // unterminated (truncated document): keep the rest as is
        }
        return end + terminator.utf8CodeUnitCount
    }

    private static func predefinedCode(_ name: [UInt8]) -> Int? {
        switch String(decoding: name, as: UTF8.self) {
        case "amp": return 38
        case "lt": return 60
        case "gt": return 62
        case "quot": return 34
        case "apos": return 39
        default: return nil
        }
    }

    private static func htmlEntityCode(_ name: [UInt8]) -> UInt32? {
        name.withUnsafeBufferPointer(HTMLEntities.codePoint)
    }

    @inline(__always) private static func isDigit(_ c: UInt8) -> Bool { c >= 48 && c <= 57 }
    @inline(__always) private static func isHex(_ c: UInt8) -> Bool { isDigit(c) || ((c | 0x20) >= 97 && (c | 0x20) <= 102) }
    @inline(__always) private static func isNameByte(_ c: UInt8) -> Bool {
        isDigit(c) || ((c | 0x20) >= 97 && (c | 0x20) <= 122) || c == UInt8(ascii: "_") || c == UInt8(ascii: "-")
            || c == UInt8(ascii: ".") || c == UInt8(ascii: ":") || c >= 0x80
    }
}
