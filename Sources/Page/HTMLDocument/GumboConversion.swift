#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CGumbo
import CGumboGuard

/// Runs gumbo and copies its tree into Swift nodes with an explicit stack (no recursion, so
/// hostile nesting cannot overflow the call stack). Gumbo's output is destroyed before return.
enum GumboConversion {
    struct Result {
        var nodes: [HTMLDocument.Node]
        var truncated: Bool
    }

    /// Script text left out of gumbo's input, to be put back (`InertText`): keyed by its offset in
    /// that input, which is where the script's start tag ends.
    struct Restoring {
        var source: [UInt8]
        var texts: [Int: Range<Int>]
        /// Character data gumbo got as placeholders (`TextRuns`), by placeholder index.
        var runs: [Range<Int>] = []
        static let none = Restoring(source: [], texts: [:])
    }

    /// `expectedElements` (the pre-scan's count) sizes the node array once: growing it by doubling
    /// moved every node several times.
    static func convert(_ utf8: [UInt8], limits: HTMLParseLimits, expectedElements: Int,
                        restoring: Restoring = .none) throws -> Result {
        try utf8.withUnsafeBufferPointer { buffer in
            // gumbo's tree points into the input (original tag text): it is read inside this closure.
            try buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: max(buffer.count, 1)) { input in
                try convert(input, count: buffer.count, limits: limits, expectedElements: expectedElements, restoring: restoring)
            }
        }
    }

    private static func convert(_ input: UnsafePointer<CChar>, count: Int, limits: HTMLParseLimits, expectedElements: Int,
                                restoring: Restoring) throws -> Result {
        // The guard counts gumbo's allocations and CPU time and abandons the parse past either
        // budget: the pre-scan (MarkupEstimate) refuses the known shapes, this bounds the rest.
        var status: Int32 = 0
        let guarded = pulse_gumbo_parse(input, count, limits.maxParserMemory, limits.parserCPUSeconds, &status)
        guard let guarded else {
            switch Int(status) {
            case Int(PULSE_GUMBO_MEMORY): throw HTMLDocumentError.parserMemoryExceeded(limitBytes: limits.maxParserMemory)
            case Int(PULSE_GUMBO_CPU): throw HTMLDocumentError.parserCPUExceeded(seconds: limits.parserCPUSeconds)
            default: throw HTMLDocumentError.parserFailed
            }
        }
        defer { pulse_gumbo_destroy(guarded) }
        guard let output = pulse_gumbo_output(guarded), let document = output.pointee.document else {
            throw HTMLDocumentError.parserFailed
        }
        return try copyTree(from: document, limits: limits, expectedElements: expectedElements,
                            input: UnsafeRawPointer(input), restoring: restoring)
    }

    private struct Pending {
        let node: UnsafeMutablePointer<GumboNode>
        let parent: Int
        let depth: Int
    }

    private static func copyTree(from document: UnsafeMutablePointer<GumboNode>, limits: HTMLParseLimits,
                                 expectedElements: Int, input: UnsafeRawPointer, restoring: Restoring) throws -> Result {
        var nodes: [HTMLDocument.Node] = []
        // About as many text nodes as elements; gumbo adds html/head/body when the markup has none.
        nodes.reserveCapacity(2 * min(max(expectedElements, 0), limits.maxElements) + 8)
        nodes.append(HTMLDocument.Node(kind: .document, tag: "", tagSlot: TagSlot.none, attributes: [], text: "", parent: nil,
                                       subtreeEnd: 1))
        var truncated = false
        var elementCount = 0
        var stack: [Pending] = []
        pushChildren(of: document.pointee.v.document.children, parent: 0, depth: 1, onto: &stack)
        while let item = stack.popLast() {
            let gumbo = item.node.pointee
            let index = nodes.count
            switch gumbo.type {
            case GUMBO_NODE_ELEMENT, GUMBO_NODE_TEMPLATE:
                elementCount += 1
                if elementCount > limits.maxElements { throw HTMLDocumentError.tooManyElements(limit: limits.maxElements) }
                let element = gumbo.v.element
                let (tag, slot) = tagName(element)
                nodes.append(HTMLDocument.Node(kind: .element, tag: tag, tagSlot: slot, attributes: attributes(element),
                                               text: "", parent: HTMLDocument.NodeID(index: item.parent), subtreeEnd: index + 1))
                if item.depth >= limits.maxDepth {
                    truncated = truncated || element.children.length > 0 || restoredText(of: element, input, restoring) != nil
                } else if let text = restoredText(of: element, input, restoring) {
                    // Its only child, as gumbo would have made it from the same bytes.
                    nodes.append(HTMLDocument.Node(kind: .text, tag: "", tagSlot: TagSlot.none, attributes: [], text: text,
                                                   parent: HTMLDocument.NodeID(index: index), subtreeEnd: index + 2))
                } else {
                    pushChildren(of: element.children, parent: index, depth: item.depth + 1, onto: &stack)
                }
            case GUMBO_NODE_TEXT, GUMBO_NODE_CDATA, GUMBO_NODE_WHITESPACE, GUMBO_NODE_COMMENT:
                let text = gumbo.v.text.text.map { restoring.runs.isEmpty ? String(cString: $0) : expand($0, restoring) } ?? ""
                let kind: HTMLDocument.NodeKind = gumbo.type == GUMBO_NODE_COMMENT ? .comment : .text
                nodes.append(HTMLDocument.Node(kind: kind, tag: "", tagSlot: TagSlot.none, attributes: [], text: text,
                                               parent: HTMLDocument.NodeID(index: item.parent), subtreeEnd: index + 1))
            default:
                continue
            }
        }
        // The stack walk appends in document order, each subtree contiguous after its root; a
        // node's subtree ends where its last descendant's does. Children come after parents, so
        // one backward pass settles every end.
        for index in stride(from: nodes.count - 1, to: 0, by: -1) {
            guard let parent = nodes[index].parent?.index else { continue }
            nodes[parent].subtreeEnd = max(nodes[parent].subtreeEnd, nodes[index].subtreeEnd)
        }
        return Result(nodes: nodes, truncated: truncated)
    }

    /// The text `InertText` took out of this script element, if it is one of those: its start tag
    /// ends where the text was. Only a childless `<script>` from the input can be.
    private static func restoredText(of element: GumboElement, _ input: UnsafeRawPointer, _ restoring: Restoring) -> String? {
        guard !restoring.texts.isEmpty, element.children.length == 0, element.tag == GUMBO_TAG_SCRIPT,
              let tag = element.original_tag.data, element.original_tag.length > 0 else { return nil }
        let end = input.distance(to: UnsafeRawPointer(tag)) + element.original_tag.length
        guard let range = restoring.texts[end] else { return nil }
        return String(decoding: restoring.source[range], as: UTF8.self)
    }

    /// gumbo's text with each placeholder replaced by the run it stands for.
    private static func expand(_ text: UnsafePointer<CChar>, _ restoring: Restoring) -> String {
        let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(text).assumingMemoryBound(to: UInt8.self), count: strlen(text))
        // Private-use code points start with 0xEE, 0xEF, 0xF3 or 0xF4.
        guard let first = bytes.firstIndex(where: { $0 >= 0xEE }) else { return String(decoding: bytes, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 64)
        out.append(contentsOf: bytes[..<first])
        var index = first
        while index < bytes.count {
            if bytes[index] >= 0xEE, let (run, length) = TextRuns.placeholder(in: bytes, at: index), run < restoring.runs.count {
                out.append(contentsOf: restoring.source[restoring.runs[run]])
                index += length
            } else {
                out.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func pushChildren(of vector: GumboVector, parent: Int, depth: Int, onto stack: inout [Pending]) {
        guard vector.length > 0, let data = vector.data else { return }
        for offset in stride(from: Int(vector.length) - 1, through: 0, by: -1) {
            if let child = data[offset] {
                stack.append(Pending(node: child.assumingMemoryBound(to: GumboNode.self), parent: parent, depth: depth))
            }
        }
    }

    /// gumbo's name for each tag it knows, made into a String once: `String(cString:)` on every
    /// element (a length scan and a UTF-8 check) was a fifth of the tree copy.
    private static let knownTagNames: [String] = (0..<GUMBO_TAG_UNKNOWN.rawValue).map { raw in
        gumbo_normalized_tagname(GumboTag(rawValue: raw)).map { String(cString: $0) } ?? ""
    }

    /// Each known name's `TagSlot`, found once rather than per element.
    private static let knownTagSlots: [Int] = knownTagNames.map(TagSlot.of)

    private static func tagName(_ element: GumboElement) -> (name: String, slot: Int) {
        if element.tag.rawValue < GUMBO_TAG_UNKNOWN.rawValue {
            let text = knownTagNames[Int(element.tag.rawValue)]
            if !text.isEmpty { return (text, knownTagSlots[Int(element.tag.rawValue)]) }
        }
        var piece = element.original_tag
        gumbo_tag_from_original_text(&piece)
        guard let data = piece.data, piece.length > 0 else { return ("", TagSlot.none) }
        let bytes = UnsafeRawBufferPointer(start: data, count: piece.length)
        let name = String(decoding: bytes, as: UTF8.self).lowercased()
        return (name, TagSlot.of(name))
    }

    private static func attributes(_ element: GumboElement) -> [HTMLDocument.Attribute] {
        let vector = element.attributes
        guard vector.length > 0, let data = vector.data else { return [] }
        var result: [HTMLDocument.Attribute] = []
        result.reserveCapacity(Int(vector.length))
        for offset in 0..<Int(vector.length) {
            guard let raw = data[offset] else { continue }
            let attribute = raw.assumingMemoryBound(to: GumboAttribute.self).pointee
            let name = attribute.name.map { String(cString: $0) } ?? ""
            let value = attribute.value.map { String(cString: $0) } ?? ""
            result.append(HTMLDocument.Attribute(name: name, value: value))
        }
        return result
    }
}
