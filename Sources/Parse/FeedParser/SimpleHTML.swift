internal import CLibXML2

/// A reader for feed HTML in the shape publishing systems write it, producing exactly the
/// Collector events libxml2's HTML parser produces for it, at a fraction of the cost: libxml2's
/// parser reads character by character. With libxml2 reading every fragment instead, `--dump-feed`
/// took 1.31x the CPU on the feed bench's generated corpus (rss20 1.38x, atom 1.24x, rss10 1.33x,
/// the 16 MB feed 1.50x; medians of 11 interleaved runs, November 2026), for byte-identical output
/// there, on the fixtures and on the fuzz corpus.
///
/// Hand-written because nothing here reads HTML cheaply, and deliberately narrow: it takes a
/// fragment only when libxml2's error recovery cannot come into play, and returns false (the
/// caller then uses libxml2) on the first thing outside that shape:
/// - tags from a fixed vocabulary (below), every element closed by its own end tag, innermost
///   first, none left open; no comments, doctypes, processing instructions or CDATA;
/// - a block element only at the top level or directly inside a container (div, blockquote, li,
///   figure and the HTML5 sectioning elements), `<li>` only directly inside `<ul>`/`<ol>`, and no
///   `<a>` inside `<a>`: there libxml2 never closes an element on its own, so the structure (and
///   the paragraph breaks it yields) is the one written;
/// - attributes as libxml2 reads them (names, quoted or bare values), values without line breaks;
/// - character references only where libxml2 substitutes them: `&name;` for a name in libxml2's
///   own table (htmlEntityLookup) and `&#…;`/`&#x…;` for a valid XML character. Any other `&` is
///   text to both readers.
/// - no C0 controls but tab and line breaks, no U+FFFE/U+FFFF (libxml2 drops them), and `<` always
///   starts a tag.
/// `SimpleHTMLTests` holds it to libxml2 on generated fragments of this vocabulary, well-formed
/// and not, and on the fixtures.
enum SimpleHTML {
    enum Role: UInt8 {
        /// Phrasing content: allowed anywhere.
        case inline
        /// Void, no end tag: br, img.
        case voidInline
        /// Void block: hr.
        case voidBlock
        /// A block holding phrasing content only: p, h1-h6.
        case block
        /// A block that may hold blocks: div, blockquote, figure, section...
        case container
        /// ul, ol: hold li only (and phrasing).
        case list
        /// li: a container allowed only directly in a list.
        case listItem
    }

    struct Element {
        var kind: HTMLText.Kind
        var role: Role
        var id: UInt8
    }

    /// The vocabulary, keyed like HTMLText.kinds, from which each element's kind comes: both
    /// readers feed the collector the same events only if they agree on it.
    private static let vocabulary: [UInt64: Element] = {
        var table: [UInt64: Element] = [:]
        var next: UInt8 = 1
        func add(_ names: [String], _ role: Role) {
            for name in names {
                let key = HTMLText.key(Array(name.utf8))
                table[key] = Element(kind: HTMLText.kinds[key] ?? .inline, role: role, id: next)
                next += 1
            }
        }
        add(["a", "abbr", "b", "big", "cite", "code", "del", "dfn", "em", "font", "i", "ins", "kbd", "mark",
             "q", "s", "samp", "small", "span", "strike", "strong", "sub", "sup", "time", "tt", "u", "var"], .inline)
        add(["br", "img"], .voidInline)
        add(["hr"], .voidBlock)
        add(["p", "h1", "h2", "h3", "h4", "h5", "h6"], .block)
        add(["div", "blockquote", "figure", "figcaption", "section", "article", "header", "footer",
             "aside", "nav", "main"], .container)
        add(["ul", "ol"], .list)
        add(["li"], .listItem)
        return table
    }()

    private static let anchorID = vocabulary[HTMLText.key(Array("a".utf8))]!.id
    private static let maxDepth = 64

    /// Feeds `collector` and returns true, or returns false as soon as the fragment leaves the
    /// shape above (the collector then holds partial output and must be reset).
    static func read(_ bytes: UnsafeBufferPointer<UInt8>, into collector: HTMLText.Collector) -> Bool {
        guard let base = bytes.baseAddress else { return false }
        var reader = Reader(base: base, count: bytes.count, collector: collector)
        return reader.run()
    }

    struct Reader {
        let base: UnsafePointer<UInt8>
        let count: Int
        let collector: HTMLText.Collector
        var i = 0
        var stack: [Element] = []
        var anchors = 0
        /// Decoded character references, handed to the collector as text.
        var scratch: [UInt8] = []
        /// htmlEntityLookup scans libxml2's table of 253 names: past this many lookups in one
        /// fragment (a flood of `&x;`), libxml2's parser takes over under its CPU budget.
        var lookupsLeft = 4096

        init(base: UnsafePointer<UInt8>, count: Int, collector: HTMLText.Collector) {
            self.base = base
            self.count = count
            self.collector = collector
            stack.reserveCapacity(16)
        }

        mutating func run() -> Bool {
            var textStart = 0
            let memory = UnsafeRawPointer(base)
            while i < count {
                // Eight bytes at a time through plain text (see plainText).
                if i + 8 <= count, Self.plainText(memory.loadUnaligned(fromByteOffset: i, as: UInt64.self)) {
                    i += 8
                    continue
                }
                let b = base[i]
                if b == 0x3C || b == 0x26 {  // < &
                    flushText(from: textStart)
                    if b == 0x3C { guard tag() else { return false } } else { guard reference() else { return false } }
                    textStart = i
                    continue
                }
                if b < 0x20 {
                    guard b == 0x09 || b == 0x0A || b == 0x0D else { return false }
                } else if b == 0xEF, i + 2 < count, base[i + 1] == 0xBF, base[i + 2] >= 0xBE {
                    return false  // U+FFFE, U+FFFF
                }
                i += 1
            }
            flushText(from: textStart)
            return stack.isEmpty
        }

        /// True when none of the eight bytes is `<`, `&`, below 0x20 or 0xEF (the lead byte of
        /// U+FFFE/U+FFFF): the byte loop would pass over each of them.
        @inline(__always)
        static func plainText(_ w: UInt64) -> Bool {
            (WordBytes.some(w, below: 0x20) | WordBytes.some(w, equalTo: 0x3C) | WordBytes.some(w, equalTo: 0x26)
                | WordBytes.some(w, equalTo: 0xEF)) == 0
        }

        private func flushText(from start: Int) {
            if i > start { collector.text(UnsafeBufferPointer(start: base + start, count: i - start)) }
        }

        // MARK: Tags

        private static func isLetter(_ b: UInt8) -> Bool { (b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A }
        private static func isBlank(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }

        /// libxml2's htmlParseHTMLName: a letter, `_`, `:` or `.`, then letters, digits, `:-_.`.
        private static func isNameByte(_ b: UInt8) -> Bool {
            isLetter(b) || (b >= 0x30 && b <= 0x39) || b == 0x3A || b == 0x2D || b == 0x5F || b == 0x2E
        }

        private mutating func skipBlanks() { while i < count, Self.isBlank(base[i]) { i += 1 } }

        /// A name at `i` (`first` already checked by the caller); nil past libxml2's 100-byte buffer.
        private mutating func name() -> (start: Int, length: Int)? {
            let start = i
            while i < count, Self.isNameByte(base[i]) { i += 1 }
            let length = i - start
            return length > 0 && length < 90 ? (start, length) : nil
        }

        private mutating func tag() -> Bool {
            guard i + 1 < count else { return false }
            let next = base[i + 1]
            if next == 0x2F { return endTag() }
            guard Self.isLetter(next) else { return false }  // comments, doctypes, a bare `<`
            i += 1
            guard let (start, length) = name(),
                  let known = HTMLText.exactKey(base + start, length),
                  let element = SimpleHTML.vocabulary[known],
                  allowed(element) else { return false }
            var src: String?, width: String?, height: String?
            let wantsImage = element.kind == .img && collector.wantsImage
            // Attributes, read as htmlParseStartTag reads them.
            skipBlanks()
            var seen = (src: false, width: false, height: false)
            while i < count, base[i] != 0x3E, !(base[i] == 0x2F && i + 1 < count && base[i + 1] == 0x3E) {
                let first = base[i]
                guard Self.isLetter(first) || first == 0x5F || first == 0x3A || first == 0x2E,
                      let (nameStart, nameLength) = name() else { return false }
                skipBlanks()
                var value: [UInt8]?
                if i < count, base[i] == 0x3D {
                    i += 1
                    skipBlanks()
                    guard let v = attributeValue() else { return false }
                    value = v
                }
                skipBlanks()
                if wantsImage {
                    // A repeated attribute is dropped by libxml2: the first one counts, even valueless.
                    let attribute = String(decoding: UnsafeBufferPointer(start: base + nameStart, count: nameLength), as: UTF8.self).lowercased()
                    let text = value.map { String(decoding: $0, as: UTF8.self) }
                    switch attribute {
                    case "src" where !seen.src: seen.src = true; src = text
                    case "width" where !seen.width: seen.width = true; width = text
                    case "height" where !seen.height: seen.height = true; height = text
                    default: break
                    }
                }
            }
            guard i < count else { return false }  // the document ended inside the tag
            let selfClosing = base[i] == 0x2F
            i += selfClosing ? 2 : 1
            collector.start(element.kind)
            if element.kind == .img, wantsImage { collector.image(src: src, width: width, height: height) }
            switch element.role {
            case .voidInline, .voidBlock:
                collector.end(element.kind)
            default:
                if selfClosing {
                    collector.end(element.kind)
                } else {
                    guard stack.count < SimpleHTML.maxDepth else { return false }
                    stack.append(element)
                    if element.id == SimpleHTML.anchorID { anchors += 1 }
                }
            }
            return true
        }

        /// Where libxml2 would close an open element by itself, or place it differently, say no.
        private func allowed(_ element: Element) -> Bool {
            let top = stack.last?.role
            switch element.role {
            case .inline:
                return element.id != SimpleHTML.anchorID || anchors == 0
            case .voidInline:
                return true
            case .listItem:
                return top == .list
            case .block, .container, .list, .voidBlock:
                return top == nil || top == .container || top == .listItem
            }
        }

        /// A quoted or bare value (htmlParseAttValue), character references decoded; nil when it
        /// is not one libxml2 would read the same way.
        private mutating func attributeValue() -> [UInt8]? {
            guard i < count else { return nil }
            var value: [UInt8] = []
            let quote = base[i]
            if quote == 0x22 || quote == 0x27 {
                i += 1
                while i < count, base[i] != quote {
                    guard appendValueByte(&value) else { return nil }
                }
                guard i < count else { return nil }
                i += 1
            } else {
                while i < count, !Self.isBlank(base[i]), base[i] != 0x3E {
                    guard appendValueByte(&value) else { return nil }
                }
                guard !value.isEmpty else { return nil }
            }
            return value
        }

        private mutating func appendValueByte(_ value: inout [UInt8]) -> Bool {
            let b = base[i]
            if b < 0x20 || b == 0x3C { return false }  // line breaks, controls, a `<` in a value
            if b == 0x26 {
                guard let decoded = decodeReference() else {
                    value.append(b)
                    i += 1
                    return true
                }
                guard let scalar = decoded else { return false }
                appendUTF8(scalar, to: &value)
                return true
            }
            value.append(b)
            i += 1
            return true
        }

        private mutating func endTag() -> Bool {
            i += 2
            guard i < count, Self.isLetter(base[i]), let (start, length) = name(),
                  let known = HTMLText.exactKey(base + start, length),
                  let element = SimpleHTML.vocabulary[known],
                  let top = stack.last, top.id == element.id else { return false }
            skipBlanks()
            guard i < count, base[i] == 0x3E else { return false }
            i += 1
            stack.removeLast()
            if element.id == SimpleHTML.anchorID { anchors -= 1 }
            collector.end(element.kind)
            return true
        }

        // MARK: Character references

        private mutating func reference() -> Bool {
            guard let decoded = decodeReference() else {
                // Not a reference libxml2 substitutes: the `&` is text (the run goes on from it).
                collector.text(UnsafeBufferPointer(start: base + i, count: 1))
                i += 1
                return true
            }
            guard let scalar = decoded else { return false }
            scratch.removeAll(keepingCapacity: true)
            appendUTF8(scalar, to: &scratch)
            scratch.withUnsafeBufferPointer { collector.text($0) }
            return true
        }

        /// At a `&`: `.some(scalar)` for a reference libxml2 substitutes (consumed), `.some(nil)`
        /// for one it treats in a way not copied here, nil for an `&` both read as text.
        private mutating func decodeReference() -> UInt32?? {
            let start = i + 1
            guard start < count else { return nil }
            if base[start] == 0x23 {  // &#
                var j = start + 1
                let hex = j < count && (base[j] | 0x20) == 0x78
                if hex { j += 1 }
                var value: UInt32 = 0
                var digits = 0
                while j < count, digits <= 7 {
                    let c = base[j]
                    let digit: UInt32
                    if c >= 0x30 && c <= 0x39 { digit = UInt32(c - 0x30) }
                    else if hex, (c | 0x20) >= 0x61, (c | 0x20) <= 0x66 { digit = UInt32((c | 0x20) - 0x61 + 10) }
                    else { break }
                    value = value * (hex ? 16 : 10) + digit
                    digits += 1
                    j += 1
                }
                // Without digits, without `;`, or not a character: libxml2 has its own ways.
                guard digits > 0, digits <= 7, j < count, base[j] == 0x3B, Self.isXMLChar(value) else { return .some(nil) }
                i = j + 1
                return .some(value)
            }
            guard Self.isLetter(base[start]) else { return nil }
            var j = start
            while j < count, j - start < 32, Self.isLetter(base[j]) || (base[j] >= 0x30 && base[j] <= 0x39) { j += 1 }
            // libxml2 substitutes `&name;` only; `&name` and unknown names stay text for both.
            guard j < count, base[j] == 0x3B else {
                return j - start >= 32 ? .some(nil) : nil
            }
            lookupsLeft -= 1
            guard lookupsLeft >= 0 else { return .some(nil) }
            var name = [UInt8](UnsafeBufferPointer(start: base + start, count: j - start))
            name.append(0)
            guard let entity = name.withUnsafeBufferPointer({ htmlEntityLookup($0.baseAddress!) }) else { return nil }
            let value = entity.pointee.value
            guard value > 0 else { return .some(nil) }
            i = j + 1
            return .some(UInt32(value))
        }

        private static func isXMLChar(_ v: UInt32) -> Bool {
            v == 0x09 || v == 0x0A || v == 0x0D || (v >= 0x20 && v <= 0xD7FF) || (v >= 0xE000 && v <= 0xFFFD)
                || (v >= 0x10000 && v <= 0x10FFFF)
        }

        private func appendUTF8(_ v: UInt32, to out: inout [UInt8]) {
            if v < 0x80 {
                out.append(UInt8(v))
            } else if v < 0x800 {
                out.append(UInt8(0xC0 | (v >> 6))); out.append(UInt8(0x80 | (v & 0x3F)))
            } else if v < 0x10000 {
                out.append(UInt8(0xE0 | (v >> 12))); out.append(UInt8(0x80 | ((v >> 6) & 0x3F)))
                out.append(UInt8(0x80 | (v & 0x3F)))
            } else {
                out.append(UInt8(0xF0 | (v >> 18))); out.append(UInt8(0x80 | ((v >> 12) & 0x3F)))
                out.append(UInt8(0x80 | ((v >> 6) & 0x3F))); out.append(UInt8(0x80 | (v & 0x3F)))
            }
        }
    }
}
