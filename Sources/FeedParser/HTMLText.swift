internal import CLibXML2

/// HTML fragment -> plain text, using libxml2's HTML parser (network off, errors silenced,
/// recovery on) and a tree walk. Block elements become paragraph breaks, scripts/styles and other
/// non-content subtrees are skipped, entities are decoded by the parser, and the result is run
/// through `TextSanitizer.block`. Reused by other modules (e.g. readability fallbacks).
public enum HTMLText {
    public struct Extract: Sendable, Equatable {
        /// Paragraphs separated by one blank line; whitespace collapsed; controls/bidi removed.
        public var text: String
        /// `src` of the first `<img>` (raw, unresolved), if any.
        public var firstImageSource: String?
    }

    public static func extract(_ html: String) -> Extract {
        var h = html
        return h.withUTF8 { extract(bytes: $0) }
    }

    public static func extract(bytes: UnsafeBufferPointer<UInt8>) -> Extract {
        // Fast path: nothing to parse.
        if !bytes.contains(UInt8(ascii: "<")) && !bytes.contains(UInt8(ascii: "&")) {
            return Extract(text: TextSanitizer.cleanString(bytes, multiline: true), firstImageSource: nil)
        }
        guard bytes.count > 0, bytes.count < Int(Int32.max), let base = bytes.baseAddress else {
            return Extract(text: "", firstImageSource: nil)
        }
        let options = Int32(bitPattern: HTML_PARSE_NONET.rawValue | HTML_PARSE_NOERROR.rawValue
            | HTML_PARSE_NOWARNING.rawValue | HTML_PARSE_RECOVER.rawValue | HTML_PARSE_NOIMPLIED.rawValue)
        let doc = base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
            htmlReadMemory($0, Int32(bytes.count), nil, "UTF-8", options)
        }
        guard let doc else { return Extract(text: "", firstImageSource: nil) }
        defer { xmlFreeDoc(doc) }
        var walker = Walker()
        walker.walk(UnsafeMutableRawPointer(doc).assumingMemoryBound(to: xmlNode.self))
        let text = walker.out.withUnsafeBufferPointer { TextSanitizer.cleanString($0, multiline: true) }
        return Extract(text: text, firstImageSource: walker.firstImage)
    }

    enum Kind: UInt8 { case inline, paragraph, line, cell, skip, br, img, pre }

    /// Tag names packed into a UInt64 key (first 8 bytes mixed with the length): no String per node.
    static let kinds: [UInt64: Kind] = {
        var m: [UInt64: Kind] = [:]
        let table: [(Kind, [String])] = [
            (.paragraph, ["p", "div", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote",
                          "table", "section", "article", "header", "footer", "aside", "nav", "figure",
                          "figcaption", "hr", "dl", "address", "main", "details", "center", "body"]),
            (.line, ["li", "tr", "dt", "dd", "summary", "caption"]),
            (.cell, ["td", "th"]),
            (.skip, ["script", "style", "noscript", "template", "iframe", "object", "embed", "svg",
                     "math", "head", "title", "select", "textarea", "button", "audio", "video",
                     "canvas", "map", "frameset", "noembed", "noframes"]),
            (.br, ["br"]), (.img, ["img"]), (.pre, ["pre"]),
        ]
        for (kind, names) in table {
            for name in names { m[key(Array(name.utf8))] = kind }
        }
        return m
    }()

    static func key(_ bytes: [UInt8]) -> UInt64 {
        bytes.withUnsafeBufferPointer { key($0.baseAddress!, bytes.count) }
    }

    @inline(__always)
    static func key(_ p: UnsafePointer<UInt8>, _ len: Int) -> UInt64 {
        var k: UInt64 = 0
        for i in 0..<min(len, 8) { k |= UInt64(p[i] | 0x20) << (8 * UInt64(i)) }
        return k &+ UInt64(len) &* 0x9E37_79B9_7F4A_7C15
    }

    struct Walker {
        var out: [UInt8] = []
        var firstImage: String?
        var preDepth = 0

        mutating func walk(_ root: UnsafeMutablePointer<xmlNode>) {
            var node = root.pointee.children
            while let n = node {
                var descend = true
                let kind = kindOf(n)
                switch n.pointee.type {
                case XML_ELEMENT_NODE:
                    switch kind {
                    case .skip: descend = false
                    case .paragraph: out.append(0x0A); out.append(0x0A)
                    case .line: out.append(0x0A)
                    case .cell: out.append(0x20)
                    case .br: out.append(0x0A)
                    case .img: if firstImage == nil { firstImage = attribute(n, "src") }
                    case .pre: out.append(0x0A); out.append(0x0A); preDepth += 1
                    case .inline: break
                    }
                case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
                    appendText(n.pointee.content)
                default:
                    break
                }
                if descend, let child = n.pointee.children, n.pointee.type == XML_ELEMENT_NODE {
                    node = child
                    continue
                }
                // Leave `n` and every ancestor that has no next sibling.
                var cur = n
                var curKind = kind
                node = nil
                while true {
                    leave(cur, curKind)
                    if let next = cur.pointee.next { node = next; break }
                    guard let parent = cur.pointee.parent, parent != root else { break }
                    cur = parent
                    curKind = kindOf(cur)
                }
            }
        }

        mutating func leave(_ n: UnsafeMutablePointer<xmlNode>, _ kind: Kind) {
            guard n.pointee.type == XML_ELEMENT_NODE else { return }
            switch kind {
            case .paragraph: out.append(0x0A); out.append(0x0A)
            case .pre: out.append(0x0A); out.append(0x0A); preDepth -= 1
            default: break
            }
        }

        func kindOf(_ n: UnsafeMutablePointer<xmlNode>) -> Kind {
            guard n.pointee.type == XML_ELEMENT_NODE, let name = n.pointee.name else { return .inline }
            let len = Int(xmlStrlen(name))
            return HTMLText.kinds[HTMLText.key(name, len)] ?? .inline
        }

        mutating func appendText(_ content: UnsafeMutablePointer<xmlChar>?) {
            guard var p = content else { return }
            // Source newlines are plain whitespace in HTML except inside <pre>.
            let keepNewlines = preDepth > 0
            while p.pointee != 0 {
                let c = p.pointee
                out.append((c == 0x0A || c == 0x0D) && !keepNewlines ? 0x20 : c)
                p += 1
            }
        }

        func attribute(_ n: UnsafeMutablePointer<xmlNode>, _ name: String) -> String? {
            guard let attr = xmlHasProp(n, name) else { return nil }
            return HTMLText.textChildren(attr.pointee.children, limit: 8 * FieldCaps.url)
        }
    }

    /// Concatenated content of the text nodes in a sibling list (entity references skipped,
    /// never expanded), at most `limit` bytes.
    static func textChildren(_ first: UnsafeMutablePointer<xmlNode>?, limit: Int) -> String {
        var bytes: [UInt8] = []
        var node = first
        while let n = node, bytes.count < limit {
            if n.pointee.type == XML_TEXT_NODE, let c = n.pointee.content {
                bytes.append(contentsOf: UnsafeBufferPointer(start: c, count: Int(xmlStrlen(c))))
            }
            node = n.pointee.next
        }
        if bytes.count > limit { bytes.removeSubrange(limit...) }
        return String(decoding: bytes, as: UTF8.self)
    }
}
