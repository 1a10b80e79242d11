import FoundationEssentials

/// An immutable HTML tree converted from gumbo's output. Gumbo's own tree is freed inside
/// `parse` (gumbo_destroy_output runs before it returns) rather than owned by a class that
/// frees in deinit: the Swift copy is a plain `Sendable` value any task can read, and no
/// C memory outlives the call that made it.
public struct HTMLDocument: Sendable {
    public struct NodeID: Hashable, Sendable, Comparable {
        public let index: Int
        public static func < (lhs: NodeID, rhs: NodeID) -> Bool { lhs.index < rhs.index }
    }

    public enum NodeKind: Sendable, Equatable { case document, element, text, comment }

    public struct Attribute: Sendable, Equatable {
        public let name: String
        public let value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    public struct Node: Sendable {
        public let kind: NodeKind
        /// Lower-cased tag name for elements, empty otherwise.
        public let tag: String
        /// `TagSlot.of(tag)`, looked up once per distinct gumbo tag rather than per element.
        public let tagSlot: Int
        public let attributes: [Attribute]
        /// Text of text and comment nodes, empty otherwise.
        public let text: String
        public let parent: NodeID?
        /// The index after this node's last descendant. `nodes` is in document order, so a
        /// node's subtree is the index range after it up to here: no array of children per node
        /// (one allocation per element, a tenth of the tree copy), and a subtree walk is a loop.
        public internal(set) var subtreeEnd: Int
    }

    /// Nodes in document order; index 0 is the document node.
    public let nodes: [Node]
    /// The encoding the bytes were decoded with (WHATWG label).
    public let encoding: String
    /// True when content nested deeper than `HTMLParseLimits.maxDepth` was cut.
    public let depthTruncated: Bool

    init(nodes: [Node], encoding: String, depthTruncated: Bool) {
        self.nodes = nodes
        self.encoding = encoding
        self.depthTruncated = depthTruncated
    }

    /// Parses page bytes: charset from `contentType`, BOM or `<meta>`, then gumbo on UTF-8.
    public static func parse(_ bytes: [UInt8], contentType: String? = nil,
                             limits: HTMLParseLimits = .init()) throws -> HTMLDocument {
        guard bytes.count <= limits.maxBytes else {
            throw HTMLDocumentError.tooLarge(bytes: bytes.count, limit: limits.maxBytes)
        }
        let label = CharsetDetection.detect(bytes, contentType: contentType)
        let text = CharsetDetection.decode(bytes, label: label)
        return try parse(utf8: Array(text.utf8), encoding: label, limits: limits)
    }

    public static func parse(_ data: Data, contentType: String? = nil,
                             limits: HTMLParseLimits = .init()) throws -> HTMLDocument {
        try parse([UInt8](data), contentType: contentType, limits: limits)
    }

    /// Parses already-decoded markup.
    public static func parse(html: String, limits: HTMLParseLimits = .init()) throws -> HTMLDocument {
        let utf8 = Array(html.utf8)
        guard utf8.count <= limits.maxBytes else {
            throw HTMLDocumentError.tooLarge(bytes: utf8.count, limit: limits.maxBytes)
        }
        return try parse(utf8: utf8, encoding: "utf-8", limits: limits)
    }

    static func parse(utf8: [UInt8], encoding: String, limits: HTMLParseLimits) throws -> HTMLDocument {
        // Decoding can grow the byte count (windows-1252 -> UTF-8), so check again.
        guard utf8.count <= limits.maxBytes * 3 else {
            throw HTMLDocumentError.tooLarge(bytes: utf8.count, limit: limits.maxBytes)
        }
        var inert = InertText(enabled: limits.leavesOutScriptAndStyleText)
        inert.substitutesText = inert.enabled && !TextRuns.containsPrivateUse(utf8)
        let elements = try MarkupEstimate.check(utf8, limits: limits, inertText: &inert)
        let converted: GumboConversion.Result
        if inert.ranges.isEmpty && inert.textRuns.isEmpty {
            converted = try GumboConversion.convert(utf8, limits: limits, expectedElements: elements)
        } else {
            let (input, restoring) = inert.removing(from: utf8)
            converted = try GumboConversion.convert(input, limits: limits, expectedElements: elements,
                                                    restoring: GumboConversion.Restoring(source: utf8, texts: restoring,
                                                                                         runs: inert.textRuns))
        }
        return HTMLDocument(nodes: converted.nodes, encoding: encoding, depthTruncated: converted.truncated)
    }
}

// MARK: - Walking and querying

extension HTMLDocument {
    public var root: NodeID { NodeID(index: 0) }

    public subscript(id: NodeID) -> Node { nodes[id.index] }

    public var documentElement: NodeID? { children(of: root).first { nodes[$0.index].tag == "html" } }
    public var head: NodeID? { documentElement.flatMap { html in children(of: html).first { self[$0].tag == "head" } } }
    public var body: NodeID? { documentElement.flatMap { html in children(of: html).first { self[$0].tag == "body" } } }

    public func children(of id: NodeID) -> [NodeID] {
        var result: [NodeID] = []
        var child = id.index + 1
        let end = nodes[id.index].subtreeEnd
        while child < end {
            result.append(NodeID(index: child))
            child = nodes[child].subtreeEnd
        }
        return result
    }

    /// The indices of `id`'s descendants, in document order.
    public func subtree(of id: NodeID) -> Range<Int> { (id.index + 1)..<nodes[id.index].subtreeEnd }
    public func parent(of id: NodeID) -> NodeID? { nodes[id.index].parent }
    public func tag(of id: NodeID) -> String { nodes[id.index].tag }

    /// The attribute's value (names are lower-case in gumbo's output).
    public func attribute(_ name: String, of id: NodeID) -> String? {
        nodes[id.index].attributes.first { $0.name == name }?.value
    }

    /// All descendants of `id` in document order (not `id` itself); iterative.
    public func descendants(of id: NodeID) -> [NodeID] { subtree(of: id).map(NodeID.init(index:)) }

    /// Elements named `tag` under `id` (default: the whole document), in document order.
    public func elements(named tag: String, under id: NodeID? = nil) -> [NodeID] {
        let tag = tag.lowercased()
        // `nodes` is in document order and every subtree is a range of it: no walk is needed.
        // Lengths first: an unequal String comparison is a call into the standard library, and
        // most tags differ from the one asked for in length.
        let length = tag.utf8.count
        var result: [NodeID] = []
        for index in subtree(of: id ?? root)
        where nodes[index].kind == .element && nodes[index].tag.utf8.count == length && nodes[index].tag == tag {
            result.append(NodeID(index: index))
        }
        return result
    }

    public func firstElement(named tag: String, under id: NodeID? = nil) -> NodeID? {
        elements(named: tag, under: id).first
    }

    /// Concatenated text of all text descendants, like DOM `textContent`.
    public func textContent(of id: NodeID) -> String {
        if nodes[id.index].kind == .text { return nodes[id.index].text }
        var text = ""
        for index in subtree(of: id) where nodes[index].kind == .text {
            text += nodes[index].text
        }
        return text
    }

    /// The `<title>` text, whitespace collapsed.
    public var title: String? {
        guard let title = firstElement(named: "title") else { return nil }
        let text = textContent(of: title).split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
        return text.isEmpty ? nil : text
    }

    public var elementCount: Int { nodes.lazy.filter { $0.kind == .element }.count }
}
