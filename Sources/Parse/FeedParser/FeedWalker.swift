internal import CLibXML2
internal import PulseModel
internal import CanonicalURL
internal import WebText

/// Walks a libxml2 text reader (streaming, or a walker over a recovered tree) and fills
/// FeedHeader / ItemBuilder values. Elements are identified by interned-name pointers; text is
/// copied only while a field we want is open.
struct FeedWalker {
    struct Open {
        var tag: Tag
        var depth: Int
        var name: UnsafePointer<xmlChar>?
    }

    struct Capture {
        var field: Field
        var depth: Int
        var mode: TextMode
        var limit: Int
        var truncated = false
        /// Atom 0.3 `mode="base64"`: the captured text is decoded when the element closes.
        var base64 = false
    }

    let reader: xmlTextReaderPtr
    var table: NameTable
    let options: FeedParserOptions
    let baseURL: String?
    let hasXMLBase: Bool
    let budget: CPUBudget
    let log: ErrorLog
    /// xmlReaderWalker keeps its own dictionary, separate from the tree's: names must be
    /// re-interned there before pointer comparison (recovery path only).
    var internNames = false

    var format: FeedFormat?
    var atomDocument = false
    /// The root is an (X)HTML page: the feed root is looked for inside it.
    var containerRoot: String?
    var core: Namespace = .none
    var header = FeedHeader()
    var stack: [Open] = []
    var item: ItemBuilder?
    var itemDepth = -1
    var skipDepth = Int.max
    var capture: Capture?
    var buffer: [UInt8] = []
    var collector: ItemCollector
    var itemCount = 0
    /// Set when the budget ran out while closing items; run() throws on its next step.
    var budgetHit = false
    /// Set when a captured field's escaped markup is refused (MarkupLimits); run() throws it.
    var refusal: FeedParseError?

    init(reader: xmlTextReaderPtr, options: FeedParserOptions, baseURL: String?, hasXMLBase: Bool,
         budget: CPUBudget, log: ErrorLog) {
        self.reader = reader
        self.table = NameTable(reader: reader)
        self.options = options
        self.baseURL = baseURL
        self.hasXMLBase = hasXMLBase
        self.budget = budget
        self.log = log
        self.collector = ItemCollector(maxItems: options.maxItems, maxListed: options.maxDroppedListed)
    }

    mutating func run() throws(FeedParseError) {
        var nodes = 0
        while true {
            let status = xmlTextReaderRead(reader)
            if status == 0 { break }
            if status < 0 { throw log.error }
            nodes &+= 1
            if let refusal { throw refusal }
            if budgetHit || (nodes & 127 == 0 && budget.exceeded()) { throw .cpuBudgetExceeded }
            switch xmlTextReaderNodeType(reader) {
            case 1:  // element
                let depth = Int(xmlTextReaderDepth(reader))
                if depth >= options.maxDepth { throw .depthLimitExceeded(options.maxDepth) }
                close(depth)
                try start(depth)
                if xmlTextReaderIsEmptyElement(reader) == 1 { close(depth) }
            case 15:  // end element
                close(Int(xmlTextReaderDepth(reader)))
            case 3, 4, 13, 14:  // text, CDATA, whitespace
                if capture != nil { appendValue() }
            case 5:  // entity reference (never expanded by libxml2, see XMLSource)
                if capture != nil { appendLeafEntity() }
            default:
                break
            }
        }
        close(0)
        if format == nil {
            if let root = containerRoot { throw .notAFeed(root: TextSanitizer.inline(String(root.prefix(64)))) }
            throw .empty
        }
    }

    // MARK: Stack

    /// Closes every open element at `depth` or deeper (robust to readers that do or do not
    /// report an end event for empty elements).
    private mutating func close(_ depth: Int) {
        while let top = stack.last, top.depth >= depth {
            stack.removeLast()
            if let c = capture {
                if c.depth == top.depth { finishCapture() } else if c.mode == .xhtml, top.depth > c.depth, let n = top.name {
                    append("</"); appendCString(n); append(">")
                }
            }
            if top.depth == skipDepth { skipDepth = .max }
            if top.depth == itemDepth, var finished = item.take() {
                if finished.base == nil, hasXMLBase { finished.base = currentBase() }
                itemDepth = -1
                itemCount += 1
                finished.position = itemCount
                collector.add(EntryMapper.map(finished, header: header, baseURL: baseURL, options: options))
                if budget.exceeded() { budgetHit = true }
            }
        }
    }

    private mutating func start(_ depth: Int) throws(FeedParseError) {
        var localName = xmlTextReaderConstLocalName(reader)
        if internNames, let raw = localName { localName = xmlTextReaderConstString(reader, raw) }
        let ns = table.namespace(xmlTextReaderConstNamespaceUri(reader))
        let name = table.name(localName)
        if format == nil {
            try detectFormat(ns: ns, name: name, localName: localName)
            if format == nil {  // inside an (X)HTML page, before the feed
                stack.append(Open(tag: .other, depth: depth, name: localName))
                return
            }
            if name == .entry {  // a lone Atom entry: the root is the item
                item = ItemBuilder()
                itemDepth = depth
                stack.append(Open(tag: .entry, depth: depth, name: localName))
                return
            }
            stack.append(Open(tag: atomDocument ? .feed : .rss, depth: depth, name: localName))
            return
        }
        if let c = capture {
            if c.mode == .xhtml { appendStartTag(localName) }
            stack.append(Open(tag: .other, depth: depth, name: localName))
            return
        }
        if depth >= skipDepth {
            stack.append(Open(tag: .other, depth: depth, name: localName))
            return
        }
        let tag = table.classify(ns: ns, name: name, atomDocument: atomDocument, core: core)
        let parent = stack.last?.tag ?? .other
        if item == nil {
            if tag == .item || tag == .entry {
                item = ItemBuilder()
                itemDepth = depth
            } else {
                feedElement(tag, parent: parent, depth: depth, ns: ns)
            }
        } else {
            itemElement(tag, parent: parent, depth: depth)
        }
        stack.append(Open(tag: tag, depth: depth, name: localName))
    }

    private mutating func detectFormat(ns: Namespace, name: NameTable.Name?, localName: UnsafePointer<xmlChar>?) throws(FeedParseError) {
        switch (name, ns) {
        case (.rss?, .none), (.rss?, .userlandRSS2), (.rss?, .atom10), (.rss?, .xhtml):
            switch attribute("version")?.trimming(" \t\r\n") ?? "" {
            case "0.90": format = .rss090
            case "0.91": format = .rss091
            case "0.92", "0.93", "0.94": format = .rss092
            default: format = .rss20
            }
            // RSS 2.0 whose root declares Atom (or XHTML, when embedded) as the default namespace:
            // its unprefixed elements are RSS all the same.
            core = ns == .atom10 || ns == .xhtml ? ns : .none
        case (.RDF?, .rdf):
            format = .rss10
            core = .rss10
        case (.feed?, .atom10), (.feed?, .atom03), (.feed?, .none),
             (.entry?, .atom10), (.entry?, .atom03):
            atomDocument = true
            core = ns
            format = ns == .atom03 || (ns == .none && attribute("version") == "0.3") ? .atom03 : .atom10
            if let lang = xmlTextReaderConstXmlLang(reader) { header.language = String(cString: lang) }
        default:
            let raw = localName.map { String(cString: $0) } ?? "?"
            if containerRoot != nil { return }
            if stack.isEmpty, raw.lowercased() == "html" {  // a feed embedded in an XHTML page
                containerRoot = raw
                return
            }
            throw .notAFeed(root: TextSanitizer.inline(String(raw.prefix(64))))
        }
    }

    // MARK: Captures

    mutating func beginCapture(_ field: Field, depth: Int, mode: TextMode, base64: Bool = false) {
        buffer.removeAll(keepingCapacity: true)
        capture = Capture(field: field, depth: depth, mode: mode, limit: field.byteLimit(contentCap: options.maxContentLength),
                          base64: base64)
    }

    private mutating func appendValue() {
        guard let value = xmlTextReaderConstValue(reader) else { return }
        if capture?.mode == .xhtml {
            var p = value
            while p.pointee != 0 {
                switch p.pointee {
                case UInt8(ascii: "<"): append("&lt;")
                case UInt8(ascii: "&"): append("&amp;")
                default: buffer.append(p.pointee)
                }
                p += 1
            }
            enforceLimit()
        } else {
            appendCString(value)
        }
    }

    /// A reference to a declared entity whose name is an HTML 4 entity (feeds that declare
    /// `<!ENTITY eacute "&#233;">` in an internal subset) contributes the HTML character, taken
    /// from WebText's HTML table, not from the declaration. Any other reference contributes
    /// nothing: declared values are never expanded (billion laughs, quadratic blow-up, values
    /// smuggled in through parameter entities).
    private mutating func appendLeafEntity() {
        guard let name = xmlTextReaderConstLocalName(reader),
              let code = HTMLEntities.codePoint(UnsafeBufferPointer(start: name, count: Int(xmlStrlen(name)))) else { return }
        var utf8: [UInt8] = []
        CharsetDecoder.appendScalar(code, to: &utf8)
        utf8.withUnsafeBufferPointer { appendValueBytes($0) }
    }

    private mutating func appendValueBytes(_ value: UnsafeBufferPointer<UInt8>) {
        for b in value {
            switch b {
            case UInt8(ascii: "<"): append("&lt;")
            case UInt8(ascii: "&"): append("&amp;")
            default: buffer.append(b)
            }
        }
        enforceLimit()
    }

    private mutating func appendCString(_ p: UnsafePointer<xmlChar>) {
        let len = Int(xmlStrlen(p))
        buffer.append(contentsOf: UnsafeBufferPointer(start: p, count: len))
        enforceLimit()
    }

    private mutating func append(_ s: StaticString) {
        buffer.append(contentsOf: UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }

    private mutating func appendStartTag(_ localName: UnsafePointer<xmlChar>?) {
        guard let localName else { return }
        append("<"); appendCString(localName)
        if xmlStrEqual(localName, "img") == 1, let src = attribute("src") {
            append(" src=\"")
            buffer.append(contentsOf: src.utf8.filter { $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "<") })
            append("\"")
        }
        append(">")
    }

    private mutating func enforceLimit() {
        guard let c = capture, buffer.count > c.limit else { return }
        var cut = c.limit
        while cut > 0, buffer[cut] & 0xC0 == 0x80 { cut -= 1 }  // stay on a character boundary
        buffer.removeSubrange(cut...)
        capture?.truncated = true
    }

    private mutating func finishCapture() {
        guard let c = capture else { return }
        capture = nil
        // Escaped HTML is parsed again (HTMLText) when the item is mapped: refuse floods first.
        if c.mode == .html, refusal == nil {
            refusal = buffer.withUnsafeBufferPointer { MarkupLimits.refusal($0, field: "item \(itemCount + 1)'s text") }
        }
        if c.base64 {  // any bytes: repaired into UTF-8 here
            let decoded = String(decoding: Base64.decode(buffer), as: UTF8.self)
            assign(c.field, RawText(bytes: Array(decoded.utf8), mode: c.mode))
            return
        }
        // A copy of its own size: the buffer keeps its capacity for the next capture.
        assign(c.field, RawText(bytes: buffer.withUnsafeBufferPointer(Array.init), mode: c.mode))
    }

    // MARK: Helpers for the element handlers

    /// An attribute's value built from its text children only. Entity references inside
    /// attribute values stay reference nodes (no XML_PARSE_NOENT) and are skipped here: libxml2's
    /// own getters (xmlTextReaderGetAttribute, xmlGetProp) would expand them recursively, which
    /// is exactly the billion-laughs / quadratic blow-up we must not do.
    func attribute(_ name: String) -> String? {
        guard xmlTextReaderMoveToAttribute(reader, name) == 1 else { return nil }
        defer { _ = xmlTextReaderMoveToElement(reader) }
        guard let node = xmlTextReaderCurrentNode(reader), node.pointee.type == XML_ATTRIBUTE_NODE else { return nil }
        return HTMLText.textChildren(node.pointee.children, limit: 8 * FieldLimits.url)
    }

    /// xml:base in force at the current node (libxml2 folds in ancestors and the document URL).
    func currentBase() -> String? {
        guard hasXMLBase else { return baseURL }
        guard let b = xmlTextReaderConstBaseUri(reader) else { return baseURL }
        return String(cString: b)
    }

    /// Trims and resolves a URL reference against the base in force.
    func resolve(_ raw: String?) -> String? {
        guard let raw else { return nil }
        let trimmed = raw.trimming(" \t\r\n")
        guard !trimmed.isEmpty, trimmed.utf8.count <= 8 * FieldLimits.url else { return nil }
        if URLReference.hasScheme(trimmed) { return trimmed }
        guard let base = currentBase() else { return nil }
        return URLReference.resolve(trimmed, against: base)
    }
}

extension String {
    /// Trims the given ASCII bytes from both ends; returns `self` (no copy) when nothing to trim.
    func trimming(_ set: StaticString) -> String {
        let setBytes = UnsafeBufferPointer(start: set.utf8Start, count: set.utf8CodeUnitCount)
        @inline(__always) func inSet(_ b: UInt8) -> Bool {
            for c in setBytes where c == b { return true }
            return false
        }
        let u = utf8
        guard let f = u.first, let l = u.last, inSet(f) || inSet(l) else { return self }
        var start = u.startIndex, end = u.endIndex
        while start < end, inSet(u[start]) { start = u.index(after: start) }
        while end > start, inSet(u[u.index(before: end)]) { end = u.index(before: end) }
        return String(self[start..<end])
    }
}
