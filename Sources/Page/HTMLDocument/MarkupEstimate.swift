/// Estimates, without building a tree, what gumbo would build: element count, nesting depth,
/// attributes, and the elements it would re-open for unclosed formatting elements. Refusing here
/// costs one linear pass; the same shapes cost gumbo minutes and gigabytes.
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

    /// The HTML "formatting elements": the parser keeps them in its list of active formatting
    /// elements and re-creates the unclosed ones inside every new block.
    static let formattingTags: Set<String> = [
        "a", "b", "big", "code", "em", "font", "i", "nobr", "s", "small", "strike", "strong", "tt", "u",
    ]

    /// Start tags that close an open `<p>` (or a list item): unclosed formatting elements inside it
    /// leave the stack but stay in the active list, to be re-opened at the next content.
    static let blockStarts: Set<String> = [
        "address", "article", "aside", "blockquote", "center", "details", "dialog", "dir", "div", "dl",
        "fieldset", "figcaption", "figure", "footer", "header", "hgroup", "main", "menu", "nav", "ol", "p",
        "search", "section", "summary", "ul", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "listing", "form",
        "table", "hr", "xmp", "li", "dd", "dt", "td", "th", "tr", "caption", "button",
    ]

    static let tableCells: Set<String> = ["td", "th", "caption"]
    static let documentTags: Set<String> = ["html", "head", "body"]

    /// Containers common in news pages that no set above names: they get a counter slot too.
    static let commonContainers: Set<String> = [
        "span", "label", "time", "picture", "sup", "sub", "abbr", "cite", "mark", "script", "style", "noscript",
        "iframe", "video", "audio", "svg", "g", "defs", "title", "select", "textarea", "q", "ins", "del",
        "object", "canvas", "template", "slot", "address", "bdi", "bdo", "data",
    ]

    /// Counts per tag name: an array slot for the names `TagNames` lists, a dictionary for the rest.
    struct NameCounts {
        private var slots = [Int](repeating: 0, count: TagNames.slotCount)
        private var others: [String: Int] = [:]

        subscript(name: String, slot: Int?) -> Int {
            get { slot.map { slots[$0] } ?? others[name, default: 0] }
            set {
                if let slot { slots[slot] = newValue } else { others[name] = newValue }
            }
        }
    }

    /// Returns the elements counted, so the tree can be sized once.
    @discardableResult
    static func check(_ bytes: [UInt8], limits: HTMLParseLimits) throws -> Int {
        var inert = InertText(enabled: false)
        return try check(bytes, limits: limits, inertText: &inert)
    }

    /// Also finds the script and style text that may be left out of gumbo's input, and the text runs it
    /// may get as placeholders (`InertText`).
    static func check(_ bytes: [UInt8], limits: HTMLParseLimits, inertText inert: inout InertText) throws -> Int {
        var scanner = TagScanner(bytes: bytes, end: bytes.count, readAttributes: false)
        scanner.collectsTextRuns = inert.enabled && inert.substitutesText
        var elements = 0
        var depth = 0
        var attributes = 0
        // Open <svg>/<math> counted generously: inside them raw-text names are ordinary elements,
        // so their content is scanned as markup (over-counting is the safe side).
        var foreign = 0
        // Unclosed formatting elements, counted as the parser's active list would hold them (an
        // upper bound: no Noah's Ark clause, no markers): `poppable` were opened (or re-opened)
        // since the last block boundary, which pops them off the stack into `offStack`; the next
        // start tag re-opens every one of those, each a new element.
        var openFormatting = NameCounts()
        var poppable = 0
        var offStack = 0
        var reopened = 0
        // Formatting elements opened before any container (straight in <body>) are ancestors of
        // everything after them: nothing pops them, so they are never re-opened.
        var containerSeen = false
        // An end tag with no open element of its name is ignored by the parser: it must not
        // lower the depth (`<div></i>` repeated nests as deep as `<div>` alone).
        var openByName = NameCounts()
        let depthRefusal = limits.maxDepth * 4
        while let tag = scanner.nextTag() {
            let tagClass = tag.info.traits
            let slot = tag.info.slot
            if tag.attributeCount > limits.maxAttributesPerElement {
                throw HTMLDocumentError.tooManyAttributes(limit: limits.maxAttributesPerElement)
            }
            attributes += tag.attributeCount
            if attributes > limits.maxAttributes { throw HTMLDocumentError.tooManyAttributesInTotal(limit: limits.maxAttributes) }
            if inert.enabled { inert.observe(tag, scanner: scanner) }
            if tagClass.contains(.svg) || tagClass.contains(.math) {
                if tag.isEnd { foreign = max(0, foreign - 1) } else if !tag.selfClosing { foreign += 1 }
                scanner.rawTextApplies = foreign == 0
            }
            if tag.isEnd {
                if tagClass.contains(.formatting) {
                    if openFormatting[tag.name, slot] > 0 {
                        openFormatting[tag.name, slot] -= 1
                        if poppable > 0 { poppable -= 1 } else if offStack > 0 { offStack -= 1 }
                    }
                } else if tagClass.contains(.tableCell) {
                    offStack = 0
                    poppable = 0
                } else if !tagClass.contains(.flat) {
                    offStack += poppable
                    poppable = 0
                }
            } else {
                // Re-opening happens before the new element is inserted.
                reopened += offStack
                poppable += offStack
                offStack = 0
                if reopened > limits.maxReopenedElements {
                    throw HTMLDocumentError.tooManyReopenedElements(limit: limits.maxReopenedElements)
                }
                if tagClass.contains(.tableCell) {
                    // A cell inserts a marker and closing it clears the list back to the marker.
                    offStack = 0
                    poppable = 0
                } else if tagClass.contains(.blockStart) {
                    offStack = poppable
                    poppable = 0
                }
                if tagClass.contains(.formatting) {
                    openFormatting[tag.name, slot] += 1
                    if containerSeen { poppable += 1 }
                } else if !tagClass.contains(.document) {
                    containerSeen = true
                }
            }
            if tagClass.contains(.flat) {
                if !tag.isEnd { elements += 1 }
            } else if tag.isEnd {
                if openByName[tag.name, slot] > 0 {
                    openByName[tag.name, slot] -= 1
                    depth = max(0, depth - 1)
                }
            } else {
                elements += 1
                // HTML ignores "/>" on its own elements; only foreign (SVG/MathML) leaves close themselves.
                if !(tag.selfClosing && (tagClass.contains(.foreignLeaf) || tag.name.contains(":"))) {
                    depth += 1
                    openByName[tag.name, slot] += 1
                }
                if depth > depthRefusal { throw HTMLDocumentError.nestingTooDeep(limit: limits.maxDepth) }
            }
            if elements > limits.maxElements { throw HTMLDocumentError.tooManyElements(limit: limits.maxElements) }
        }
        return elements
    }
}
