/// An OPML document as the catalogue importer reads it: FeedParser's `OPMLParser` makes it
/// (libxml2, hardened), SourceImport turns its outlines into sources, and neither imports the
/// other (the importer is handed the parser: `OPMLReading`).
/// One `<outline>` of an OPML document's `<body>`.
public struct OPMLOutline: Sendable, Equatable {
    public struct Attribute: Sendable, Equatable {
        /// The namespace URI; nil for OPML's own (unprefixed) attributes.
        public var namespace: String?
        /// The local name, as written.
        public var name: String
        public var value: String

        public init(namespace: String? = nil, name: String, value: String) {
            self.namespace = namespace
            self.name = name
            self.value = value
        }
    }

    /// 1-based line of the element's start tag.
    public var line: Int
    /// Index in `OPMLDocument.outlines` of the enclosing outline; nil directly under `<body>`.
    public var parent: Int?
    public var attributes: [Attribute]

    public init(line: Int, parent: Int?, attributes: [Attribute]) {
        self.line = line
        self.parent = parent
        self.attributes = attributes
    }

    /// An unprefixed attribute, its name matched in any case (`xmlUrl`, `xmlurl`: readers differ).
    public func attribute(_ name: String) -> String? {
        attributes.first { $0.namespace == nil && $0.name.lowercased() == name.lowercased() }?.value
    }
}

/// The outlines of an OPML document, in document order.
public struct OPMLDocument: Sendable, Equatable {
    public var outlines: [OPMLOutline]

    public init(outlines: [OPMLOutline]) { self.outlines = outlines }
}

public struct OPMLParseError: Error, Sendable, Equatable, CustomStringConvertible {
    public var line: Int?
    public var message: String

    public init(line: Int?, message: String) {
        self.line = line
        self.message = message
    }

    public var description: String { line.map { "line \($0): \(message)" } ?? message }
}

/// What reads an OPML file's bytes (FeedParser's `OPMLParser.parse`).
public typealias OPMLReading = @Sendable ([UInt8]) throws(OPMLParseError) -> OPMLDocument
