internal import CLibXML2
public import PulseModel

/// OPML (what feed readers export) with the feed parser's libxml2 set-up (`XMLSource`): the same
/// charset handling, no network, no DTD loading, no entity substitution, the deny-all entity loader,
/// the per-element attribute bound and a CPU budget. Strict: a document that is not well-formed is
/// refused with libxml2's message and line, never repaired (it is an operator's file, to be fixed).
public enum OPMLParser {
    /// A file is an operator's, not the internet's: a generous budget, but still one.
    public static let cpuBudgetSeconds = 60.0
    /// Longest attribute value kept; longer ones are cut here and then refused by the source rules.
    static let attributeLimit = 64 * 1024

    public static func parse(_ bytes: [UInt8]) throws(OPMLParseError) -> OPMLDocument {
        let result: Result<OPMLDocument, OPMLParseError> = bytes.withUnsafeBufferPointer { input in
            guard input.contains(where: { $0 > 0x20 }) else {
                return .failure(OPMLParseError(line: nil, message: "the file is empty"))
            }
            let decoded = CharsetDecoder.decode(input, contentType: nil)
            let run = { (utf8: UnsafeBufferPointer<UInt8>) -> Result<OPMLDocument, OPMLParseError> in
                do throws(OPMLParseError) { return .success(try parseUTF8(utf8)) } catch { return .failure(error) }
            }
            if let transcoded = decoded.transcoded { return transcoded.withUnsafeBufferPointer(run) }
            return run(UnsafeBufferPointer(rebasing: input[decoded.offset...]))
        }
        return try result.get()
    }

    static func parseUTF8(_ utf8: UnsafeBufferPointer<UInt8>) throws(OPMLParseError) -> OPMLDocument {
        if let refusal = MarkupLimits.refusal(utf8, field: "the file", maxAttributes: .max) {
            throw OPMLParseError(line: nil, message: refusal.description)
        }
        let budget = CPUBudget(seconds: cpuBudgetSeconds)
        let log = ErrorLog(budget: budget)
        guard let reader = XMLSource.streamingReader(utf8, url: nil, log: log) else {
            throw OPMLParseError(line: nil, message: "libxml2 could not start reading the file")
        }
        defer { xmlFreeTextReader(reader) }
        let tags = StartTags(utf8)
        var outlines: [OPMLOutline] = []
        // The open elements by depth: the outline's index, or nil for any other element.
        var path: [Int?] = []
        var bodyDepth: Int?
        var elementNumber = 0
        var sawRoot = false
        var nodes = 0
        while true {
            let status = xmlTextReaderRead(reader)
            if status == 0 { break }
            nodes &+= 1
            if nodes & 127 == 0, budget.exceeded() {
                throw OPMLParseError(line: nil, message: "reading the file took more than \(Int(cpuBudgetSeconds)) s of CPU")
            }
            guard status == 1 else {
                let (line, message) = log.firstFatal ?? (0, "unreadable document")
                throw OPMLParseError(line: line > 0 ? line : nil, message: "XML error: \(message)")
            }
            guard xmlTextReaderNodeType(reader) == 1,  // an element's start
                  let node = xmlTextReaderCurrentNode(reader) else { continue }
            let depth = Int(xmlTextReaderDepth(reader))
            let name = xmlTextReaderConstLocalName(reader).map { String(cString: $0) } ?? ""
            let line = tags.line(ofElement: elementNumber, localName: name) ?? Int(node.pointee.line)
            elementNumber += 1
            if depth < path.count { path.removeSubrange(depth...) }
            let isEmpty = xmlTextReaderIsEmptyElement(reader) == 1
            let inNoNamespace = xmlTextReaderConstNamespaceUri(reader) == nil
            if !sawRoot {
                sawRoot = true
                guard name == "opml" else {
                    throw OPMLParseError(line: line, message: "not an OPML document: the root element is <\(name)>")
                }
            }
            if let body = bodyDepth, depth <= body { bodyDepth = nil }
            if depth == 1, name == "body", inNoNamespace, !isEmpty { bodyDepth = 1 }
            var index: Int?
            if let body = bodyDepth, depth > body, name == "outline", inNoNamespace {
                let parent = path.last { $0 != nil } ?? nil
                outlines.append(OPMLOutline(line: line, parent: parent, attributes: attributes(of: node)))
                index = outlines.count - 1
            }
            if !isEmpty { path.append(index) }
        }
        return OPMLDocument(outlines: outlines)
    }

    /// The element's attributes, each value from its text children only: entity references stay
    /// reference nodes (no XML_PARSE_NOENT) and are skipped, as the feed walker does, so nothing
    /// is expanded.
    private static func attributes(of node: UnsafeMutablePointer<xmlNode>) -> [OPMLOutline.Attribute] {
        var attributes: [OPMLOutline.Attribute] = []
        var property = node.pointee.properties
        while let attribute = property {
            property = attribute.pointee.next
            guard let name = attribute.pointee.name else { continue }
            let namespace = attribute.pointee.ns.flatMap { $0.pointee.href }.map { String(cString: $0) }
            attributes.append(OPMLOutline.Attribute(
                namespace: namespace, name: String(cString: name),
                value: HTMLText.textChildren(attribute.pointee.children, limit: attributeLimit)))
        }
        return attributes
    }
}

/// Where each element's start tag begins, in document order. libxml2 keeps one line per node in
/// 16 bits and takes it where the tag ends; this scan gives the line a person looks for, in a file
/// of any length. The document is well-formed (libxml2 says so before a line is used), so outside
/// comments, CDATA sections, processing instructions and the DOCTYPE, every `<` followed by a name
/// starts a tag, and a `<` never appears inside an attribute value.
struct StartTags {
    private var lines: [Int32] = []
    private var names: [Range<Int>] = []
    private let bytes: UnsafeBufferPointer<UInt8>

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        var line: Int32 = 1
        var index = 0
        let count = bytes.count
        /// Moves past the first `terminator` from `index`, counting lines; to the end when none.
        func skip(past terminator: [UInt8]) {
            while index < count {
                if bytes[index] == terminator[0], index + terminator.count <= count,
                   terminator.indices.allSatisfy({ bytes[index + $0] == terminator[$0] }) {
                    index += terminator.count
                    return
                }
                if bytes[index] == 0x0A { line += 1 }
                index += 1
            }
        }
        while index < count {
            let byte = bytes[index]
            if byte == 0x0A { line += 1 }
            guard byte == UInt8(ascii: "<"), index + 1 < count else { index += 1; continue }
            let next = bytes[index + 1]
            if next == UInt8(ascii: "!") {
                if Self.hasPrefix(bytes, at: index, "<!--") {
                    index += 4
                    skip(past: Array("-->".utf8))
                } else if Self.hasPrefix(bytes, at: index, "<![CDATA[") {
                    index += 9
                    skip(past: Array("]]>".utf8))
                } else {
                    index += 2
                    skipDeclaration(&index, &line)
                }
            } else if next == UInt8(ascii: "?") {
                index += 2
                skip(past: Array("?>".utf8))
            } else if next == UInt8(ascii: "/") {
                index += 2
                skip(past: [UInt8(ascii: ">")])
            } else {
                let start = index + 1
                var end = start
                while end < count, !Self.endsName(bytes[end]) { end += 1 }
                lines.append(line)
                names.append(start..<end)
                index = end
                // To the tag's end; quoted values may hold `>` and line breaks.
                var quote: UInt8 = 0
                while index < count {
                    let byte = bytes[index]
                    index += 1
                    if byte == 0x0A { line += 1 }
                    if quote != 0 {
                        if byte == quote { quote = 0 }
                    } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                        quote = byte
                    } else if byte == UInt8(ascii: ">") {
                        break
                    }
                }
            }
        }
    }

    /// `<!DOCTYPE ...>` and, inside its internal subset, declarations, comments and PIs.
    private func skipDeclaration(_ index: inout Int, _ line: inout Int32) {
        var brackets = 0
        var quote: UInt8 = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0x0A { line += 1 }
            index += 1
            if quote != 0 {
                if byte == quote { quote = 0 }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            } else if byte == UInt8(ascii: "[") {
                brackets += 1
            } else if byte == UInt8(ascii: "]") {
                brackets -= 1
            } else if byte == UInt8(ascii: "<"), brackets > 0, Self.hasPrefix(bytes, at: index - 1, "<!--") {
                // A comment in the subset may hold quotes and brackets.
                while index < bytes.count, !Self.hasPrefix(bytes, at: index, "-->") {
                    if bytes[index] == 0x0A { line += 1 }
                    index += 1
                }
                index += 3
            } else if byte == UInt8(ascii: ">"), brackets <= 0 {
                return
            }
        }
    }

    /// The line of the `number`th element (from 0), when the scan saw a tag of that local name there.
    func line(ofElement number: Int, localName: String) -> Int? {
        guard number < lines.count else { return nil }
        var name = bytes[names[number]]
        if let colon = name.lastIndex(of: UInt8(ascii: ":")) { name = name[(colon + 1)...] }
        return name.elementsEqual(localName.utf8) ? Int(lines[number]) : nil
    }

    private static func endsName(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == UInt8(ascii: "/") || byte == UInt8(ascii: ">")
    }

    private static func hasPrefix(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int, _ prefix: StaticString) -> Bool {
        let count = prefix.utf8CodeUnitCount
        guard index >= 0, index + count <= bytes.count else { return false }
        for offset in 0..<count where bytes[index + offset] != prefix.utf8Start[offset] { return false }
        return true
    }
}
