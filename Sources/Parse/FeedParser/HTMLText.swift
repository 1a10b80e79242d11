import Glibc
internal import CLibXML2
internal import PulseModel

/// HTML fragment -> plain text with libxml2's HTML parser (recovering, errors silenced; the HTML
/// parser never loads external resources). Block elements become paragraph breaks, `<br>`/`<li>`
/// line breaks, script/style and other non-content subtrees are skipped, entities are decoded by
/// the parser, and the result goes through TextSanitizer (controls/bidi removed, whitespace
/// collapsed). Reused by other modules.
///
/// The parser is driven through its SAX callbacks rather than htmlReadMemory + a tree walk: the
/// walk needs only start/end/characters, and skipping the DOM (one malloc per node) made this the
/// difference between HTML-to-text dominating feed parsing and not.
public enum HTMLText {
    public struct Extract: Sendable, Equatable {
        /// Paragraphs separated by one blank line; whitespace collapsed; controls/bidi removed.
        public var text: String
        /// `src` of the first `<img>` (raw, unresolved) that is no tracking pixel or share button.
        public var firstImageSource: String?
    }

    public static func extract(_ html: String) -> Extract {
        var h = html
        return h.withUTF8 { extract(bytes: $0) }
    }

    public static func extract(bytes: UnsafeBufferPointer<UInt8>) -> Extract {
        // Fast path: nothing to parse.
        if !mayContainMarkup(bytes) {
            return Extract(text: TextSanitizer.cleanString(bytes, multiline: true), firstImageSource: nil)
        }
        let collector = Collector()
        collector.out.reserveCapacity(bytes.count)
        // A fragment SimpleHTML declines part-way is read again by libxml2 from the start: at most
        // twice the reading, both linear (SimpleHTML) or under a CPU budget (libxml2).
        guard SimpleHTML.read(bytes, into: collector) || parse(bytes, into: collector) else {
            return Extract(text: "", firstImageSource: nil)
        }
        return collector.extract
    }

    /// The same extraction with libxml2's HTML parser only (the reference SimpleHTML is held to).
    static func extractWithParser(bytes: UnsafeBufferPointer<UInt8>, budgetSeconds: Double = fragmentBudgetSeconds) -> Extract {
        let collector = Collector()
        guard parse(bytes, into: collector, budgetSeconds: budgetSeconds) else { return Extract(text: "", firstImageSource: nil) }
        return collector.extract
    }

    /// CPU seconds libxml2's parse of one fragment may take (checked every 256 callbacks); past them
    /// the parser is stopped and the text so far is kept.
    static let fragmentBudgetSeconds = 1.0

    /// libxml2's HTML parser driving `collector` (emptied first); false when no parser could be made.
    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>, into collector: Collector,
                              budgetSeconds: Double = fragmentBudgetSeconds) -> Bool {
        collector.reset()
        guard bytes.count > 0, bytes.count < Int(Int32.max), let base = bytes.baseAddress else { return false }
        _ = XMLSource.setUp
        let ctxt = base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
            htmlCreateMemoryParserCtxt($0, Int32(bytes.count))
        }
        guard let ctxt, let sax = ctxt.pointee.sax else { return false }
        defer {
            if let doc = ctxt.pointee.myDoc { xmlFreeDoc(doc); ctxt.pointee.myDoc = nil }
            htmlFreeParserCtxt(ctxt)
        }
        _ = htmlCtxtUseOptions(ctxt, Int32(bitPattern: HTML_PARSE_NONET.rawValue | HTML_PARSE_NOERROR.rawValue
            | HTML_PARSE_NOWARNING.rawValue | HTML_PARSE_RECOVER.rawValue))
        // The bytes are UTF-8 already: read them as such, and no <meta charset> sniffing.
        ctxt.pointee.charset = Int32(XML_CHAR_ENCODING_UTF8.rawValue)
        if let input = ctxt.pointee.input, input.pointee.encoding == nil { input.pointee.encoding = UnsafePointer(xmlStrdup("UTF-8")) }

        // Only our callbacks: no tree, no default error printing.
        sax.pointee = xmlSAXHandler()
        sax.pointee.initialized = XML_SAX2_MAGIC
        sax.pointee.serror = { _, _ in }
        sax.pointee.startElement = { ctx, name, attrs in
            guard let ctx, let name else { return }
            Unmanaged<Collector>.fromOpaque(ctx).takeUnretainedValue().start(name, attrs)
        }
        sax.pointee.endElement = { ctx, name in
            guard let ctx, let name else { return }
            Unmanaged<Collector>.fromOpaque(ctx).takeUnretainedValue().end(name)
        }
        let characters: charactersSAXFunc = { ctx, ch, len in
            guard let ctx, let ch, len > 0 else { return }
            Unmanaged<Collector>.fromOpaque(ctx).takeUnretainedValue().text(ch, Int(len))
        }
        sax.pointee.characters = characters
        sax.pointee.ignorableWhitespace = characters
        sax.pointee.cdataBlock = characters

        collector.parser = ctxt
        collector.budget = CPUBudget(seconds: budgetSeconds)
        defer { collector.parser = nil }
        ctxt.pointee.userData = Unmanaged.passUnretained(collector).toOpaque()
        _ = htmlParseDocument(ctxt)
        return true
    }

    /// A `<` or `&` anywhere (memchr: this runs on every field).
    static func mayContainMarkup(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return false }
        return memchr(base, 0x3C, bytes.count) != nil || memchr(base, 0x26, bytes.count) != nil
    }

    enum Kind: UInt8 { case inline, paragraph, line, cell, skip, br, img, pre }

    /// Tag names packed into a UInt64 key (first 8 bytes mixed with the length): no String per node.
    static let kinds: [UInt64: Kind] = {
        var m: [UInt64: Kind] = [:]
        let table: [(Kind, [String])] = [
            (.paragraph, ["p", "div", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote",
                          "table", "section", "article", "header", "footer", "aside", "nav", "figure",
                          "figcaption", "hr", "dl", "address", "main", "details", "center"]),
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

    static func kind(_ name: UnsafePointer<xmlChar>) -> Kind {
        exactKey(name, Int(xmlStrlen(name))).flatMap { kinds[$0] } ?? .inline
    }

    /// `key` for names the tables know: past eight bytes the key only sees the length, so a long
    /// name is checked in full (`<blockquotex>` is no blockquote); nil for anything else long.
    static func exactKey(_ p: UnsafePointer<UInt8>, _ len: Int) -> UInt64? {
        let k = key(p, len)
        guard len > 8 else { return k }
        guard let canonical = longNames[k], canonical.count == len else { return nil }
        for i in 0..<len where p[i] | 0x20 != canonical[i] | 0x20 { return nil }
        return k
    }

    /// The names longer than eight bytes in `kinds` and SimpleHTML's vocabulary.
    private static let longNames: [UInt64: [UInt8]] = {
        var names: [UInt64: [UInt8]] = [:]
        for name in ["blockquote", "figcaption"] { names[key(Array(name.utf8))] = Array(name.utf8) }
        return names
    }()

    /// Structural breaks are written as 0x1E (paragraph) / 0x1F (line) so that source newlines,
    /// which are plain whitespace in HTML, can be told apart (see TextSanitizer's html mode).
    final class Collector {
        var out: [UInt8] = []
        var firstImage: String?
        var skipLevel = 0
        var preLevel = 0
        /// libxml2's parse of this fragment (`fragmentBudgetSeconds`). Started by `parse`, not here:
        /// it reads the thread's CPU clock, a system call SimpleHTML's reading (most fragments) skips.
        var budget: CPUBudget?
        var parser: htmlParserCtxtPtr?
        var callbacks = 0

        private func checkBudget() {
            callbacks &+= 1
            if callbacks & 255 == 0, budget?.exceeded() == true, let parser { xmlStopParser(parser) }
        }

        func reset() {
            out.removeAll(keepingCapacity: true)
            firstImage = nil
            skipLevel = 0
            preLevel = 0
        }

        /// libxml2's start callback: the element's kind, and an `<img>`'s attributes.
        func start(_ name: UnsafePointer<xmlChar>, _ attrs: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?) {
            checkBudget()
            let kind = HTMLText.kind(name)
            start(kind)
            if kind == .img, wantsImage, var a = attrs {
                var src: String?, width: String?, height: String?
                while let n = a.pointee {
                    if let v = (a + 1).pointee {
                        if xmlStrEqual(n, "src") == 1 { src = String(cString: v) }
                        else if xmlStrEqual(n, "width") == 1 { width = String(cString: v) }
                        else if xmlStrEqual(n, "height") == 1 { height = String(cString: v) }
                    }
                    a += 2
                }
                image(src: src, width: width, height: height)
            }
        }

        func end(_ name: UnsafePointer<xmlChar>) { end(HTMLText.kind(name)) }

        func text(_ ch: UnsafePointer<xmlChar>, _ len: Int) {
            checkBudget()
            text(UnsafeBufferPointer(start: ch, count: len))
        }

        // The events both readers share (libxml2's callbacks above, SimpleHTML directly).

        func start(_ kind: Kind) {
            switch kind {
            case .skip: skipLevel += 1
            case .paragraph: out.append(0x1E)
            case .line, .br: out.append(0x1F)
            case .cell: out.append(0x20)
            case .pre: out.append(0x1E); preLevel += 1
            case .img, .inline: break
            }
        }

        /// The collected text, cleaned, and the first image.
        var extract: Extract {
            let text = out.withUnsafeBufferPointer { TextSanitizer.cleanString($0, multiline: true, html: true) }
            return Extract(text: text, firstImageSource: firstImage)
        }

        /// Whether an `<img>` starting now would be considered for `firstImage`.
        var wantsImage: Bool { firstImage == nil && skipLevel == 0 }

        func image(src: String?, width: String?, height: String?) {
            if wantsImage, let src, !ImageCandidate.isTracker(src, width: width, height: height) { firstImage = src }
        }

        func end(_ kind: Kind) {
            switch kind {
            case .skip: skipLevel = max(0, skipLevel - 1)
            case .paragraph: out.append(0x1E)
            case .pre: out.append(0x1E); preLevel = max(0, preLevel - 1)
            default: break
            }
        }

        func text(_ chunk: UnsafeBufferPointer<UInt8>) {
            guard skipLevel == 0 else { return }
            if preLevel == 0 {
                out.append(contentsOf: chunk)
            } else {
                for b in chunk { out.append(b == 0x0A ? 0x1F : b) }
            }
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
