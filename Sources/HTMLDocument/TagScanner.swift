/// A byte-level tag scanner used before gumbo runs: the meta-charset pre-scan and the
/// element-count / nesting-depth estimate that protects gumbo from hostile input.
/// Hand-written because it must run on undecoded bytes in one linear pass.
struct TagScanner {
    struct Tag {
        var name: String
        var isEnd: Bool
        var selfClosing: Bool
        var attributes: [String: String]
    }

    let bytes: [UInt8]
    let end: Int
    var position = 0
    /// When false, attributes are skipped (the depth pre-scan needs only names).
    var readAttributes = true

    init(bytes: [UInt8], end: Int, readAttributes: Bool = true) {
        self.bytes = bytes
        self.end = end
        self.readAttributes = readAttributes
    }

    private static func isLetter(_ b: UInt8) -> Bool { (b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A }
    private static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D || b == 0x0C }

    /// Skips raw-text content (script, style...) up to its closing tag.
    mutating func skipRawText(named name: String) {
        let closing = Array("</\(name)".utf8)
        while position < end {
            if bytes[position] == 0x3C, matches(closing, at: position) { return }
            position += 1
        }
    }

    private func matches(_ pattern: [UInt8], at index: Int) -> Bool {
        guard index + pattern.count <= end else { return false }
        for offset in 0..<pattern.count where bytes[index + offset] | 0x20 != pattern[offset] | 0x20 {
            return false
        }
        return true
    }

    mutating func nextTag() -> Tag? {
        while position < end {
            guard bytes[position] == 0x3C else { position += 1; continue }
            if matches(Array("<!--".utf8), at: position) {
                position += 4
                while position < end, !matches(Array("-->".utf8), at: position) { position += 1 }
                position += 3
                continue
            }
            var cursor = position + 1
            let isEnd = cursor < end && bytes[cursor] == 0x2F
            if isEnd { cursor += 1 }
            guard cursor < end, Self.isLetter(bytes[cursor]) else { position += 1; continue }
            let nameStart = cursor
            while cursor < end, !Self.isSpace(bytes[cursor]), bytes[cursor] != 0x3E, bytes[cursor] != 0x2F {
                cursor += 1
            }
            let name = String(decoding: bytes[nameStart..<cursor], as: UTF8.self).lowercased()
            var tag = Tag(name: name, isEnd: isEnd, selfClosing: false, attributes: [:])
            position = cursor
            parseAttributes(into: &tag)
            if !isEnd, Self.rawTextElements.contains(name) { skipRawText(named: name) }
            return tag
        }
        return nil
    }

    static let rawTextElements: Set<String> = ["script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes", "plaintext"]

    private mutating func parseAttributes(into tag: inout Tag) {
        while position < end {
            let byte = bytes[position]
            if byte == 0x3E { position += 1; return }
            if byte == 0x2F {
                if position + 1 < end, bytes[position + 1] == 0x3E { tag.selfClosing = true }
                position += 1
                continue
            }
            if Self.isSpace(byte) { position += 1; continue }
            let nameStart = position
            while position < end, !Self.isSpace(bytes[position]), bytes[position] != 0x3D,
                  bytes[position] != 0x3E, bytes[position] != 0x2F || position == nameStart {
                position += 1
            }
            let nameEnd = position
            while position < end, Self.isSpace(bytes[position]) { position += 1 }
            var value = ""
            if position < end, bytes[position] == 0x3D {
                position += 1
                while position < end, Self.isSpace(bytes[position]) { position += 1 }
                let valueStart: Int
                let valueEnd: Int
                if position < end, bytes[position] == 0x22 || bytes[position] == 0x27 {
                    let quote = bytes[position]
                    valueStart = position + 1
                    position += 1
                    while position < end, bytes[position] != quote { position += 1 }
                    valueEnd = position
                    position += 1
                } else {
                    valueStart = position
                    while position < end, !Self.isSpace(bytes[position]), bytes[position] != 0x3E { position += 1 }
                    valueEnd = position
                }
                if readAttributes, valueEnd > valueStart, valueEnd - valueStart < 4096 {
                    value = String(decoding: bytes[valueStart..<min(valueEnd, end)], as: UTF8.self)
                }
            }
            if readAttributes, nameEnd > nameStart {
                let name = String(decoding: bytes[nameStart..<nameEnd], as: UTF8.self).lowercased()
                if tag.attributes[name] == nil { tag.attributes[name] = value }
            }
        }
    }
}

/// Estimates element count and nesting depth without building a tree.
enum MarkupEstimate {
    /// Tags that close themselves or are closed implicitly by their next sibling, so they
    /// never deepen the tree in practice.
    static let flatTags: Set<String> = [
        "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param",
        "source", "track", "wbr", "keygen", "p", "li", "dt", "dd", "tr", "td", "th", "option",
        "optgroup", "rb", "rt", "rp", "tbody", "thead", "tfoot", "colgroup", "caption",
        "html", "head", "body", "frame", "image",
    ]

    static let foreignLeaves: Set<String> = [
        "path", "circle", "rect", "line", "polyline", "polygon", "ellipse", "use", "stop",
        "animate", "animatetransform", "set", "mpath", "fecolormatrix", "feblend", "feoffset",
        "fegaussianblur", "fecomposite", "feflood", "femergenode", "mspace", "mglyph",
    ]

    static func check(_ bytes: [UInt8], limits: HTMLParseLimits) throws {
        var scanner = TagScanner(bytes: bytes, end: bytes.count, readAttributes: false)
        var elements = 0
        var depth = 0
        let depthRefusal = limits.maxDepth * 4
        while let tag = scanner.nextTag() {
            if flatTags.contains(tag.name) {
                if !tag.isEnd { elements += 1 }
            } else if tag.isEnd {
                depth = max(0, depth - 1)
            } else {
                elements += 1
                // HTML ignores "/>" on its own elements; only foreign (SVG/MathML) leaves close themselves.
                if !(tag.selfClosing && (foreignLeaves.contains(tag.name) || tag.name.contains(":"))) { depth += 1 }
                if depth > depthRefusal { throw HTMLDocumentError.nestingTooDeep(limit: limits.maxDepth) }
            }
            if elements > limits.maxElements { throw HTMLDocumentError.tooManyElements(limit: limits.maxElements) }
        }
    }
}
