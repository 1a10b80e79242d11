internal import CLibXML2

/// Pre-pass for the recovery parse: rewrites what libxml2's recovery would otherwise throw away.
/// A bare `&` becomes `&amp;`; an HTML named entity (`&nbsp;`, `&eacute;`, `&mdash;`: names from
/// libxml2's HTML 4 table) becomes a numeric reference. The five XML entities, numeric references
/// and other names (possibly declared in an internal subset; never expanded, see XMLSource) are
/// left alone, as are CDATA sections and comments. Input and output are UTF-8.
enum EntityRepair {
    static func repair(_ s: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(s.count + s.count / 16)
        let n = s.count
        var i = 0
        while i < n {
            let b = s[i]
            if b == UInt8(ascii: "<"), let skipEnd = opaqueSectionEnd(s, i) {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: s[i..<skipEnd]))
                i = skipEnd
                continue
            }
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
                    out.append(contentsOf: Array("&amp;".utf8))
                }
                continue
            }
            var j = i
            while j < n, j - i < 32, isNameByte(s[j]) { j += 1 }
            guard j > i, j < n, s[j] == UInt8(ascii: ";") else {
                out.append(contentsOf: Array("&amp;".utf8))
                continue
            }
            let name = Array(s[i..<j])
            if let code = htmlEntityCode(name), !xmlPredefined(name) {
                out.append(contentsOf: Array("&#\(code);".utf8))
            } else {
                out.append(UInt8(ascii: "&"))
                out.append(contentsOf: name)
                out.append(UInt8(ascii: ";"))
            }
            i = j + 1
        }
        return out
    }

    /// End (exclusive) of a CDATA section or comment starting at `i`, or nil.
    private static func opaqueSectionEnd(_ s: UnsafeBufferPointer<UInt8>, _ i: Int) -> Int? {
        let cdata = Array("<![CDATA[".utf8), comment = Array("<!--".utf8)
        let terminator: [UInt8]
        if starts(s, i, cdata) { terminator = Array("]]>".utf8) } else if starts(s, i, comment) {
            terminator = Array("-->".utf8)
        } else { return nil }
        var j = i + 4
        while j + terminator.count <= s.count {
            if starts(s, j, terminator) { return j + terminator.count }
            j += 1
        }
        return s.count  // unterminated (truncated document): keep the rest as is
    }

    private static func starts(_ s: UnsafeBufferPointer<UInt8>, _ i: Int, _ p: [UInt8]) -> Bool {
        guard i + p.count <= s.count else { return false }
        for k in 0..<p.count where s[i + k] != p[k] { return false }
        return true
    }

    private static func xmlPredefined(_ name: [UInt8]) -> Bool {
        ["amp", "lt", "gt", "quot", "apos"].contains { Array($0.utf8) == name }
    }

    private static func htmlEntityCode(_ name: [UInt8]) -> UInt32? {
        var z = name
        z.append(0)
        guard let desc = z.withUnsafeBufferPointer({ htmlEntityLookup($0.baseAddress) }) else { return nil }
        return desc.pointee.value
    }

    @inline(__always) private static func isDigit(_ c: UInt8) -> Bool { c >= 48 && c <= 57 }
    @inline(__always) private static func isHex(_ c: UInt8) -> Bool { isDigit(c) || ((c | 0x20) >= 97 && (c | 0x20) <= 102) }
    @inline(__always) private static func isNameByte(_ c: UInt8) -> Bool {
        isDigit(c) || ((c | 0x20) >= 97 && (c | 0x20) <= 122) || c == UInt8(ascii: "_") || c == UInt8(ascii: "-")
            || c == UInt8(ascii: ".") || c == UInt8(ascii: ":") || c >= 0x80
    }
}
