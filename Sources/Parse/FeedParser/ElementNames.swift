internal import CLibXML2

/// Element identities the walker cares about, resolved from (namespace, local name).
enum Tag: UInt8 {
    case other
    case rss, rdfRoot, channel, feed, item, entry
    case title, link, atomLink, description, summary, content, contentEncoded, guid, id
    case pubDate, published, updated, issued, modified, created, dcDate
    case author, name, dcCreator, dcTitle, language, dcLanguage, ttl, enclosure, source
    case mediaContent, mediaThumbnail, mediaGroup, mediaDescription
    case itunesDuration, itunesImage, itunesAuthor, itunesSummary, ytVideoId, origLink
}

enum Namespace: UInt8 {
    case none, other, rss10, rss090, userlandRSS2, atom10, atom03, rdf
    case content, dc, dcterms, media, itunes, youtube, feedburner, xhtml
}

/// Interned-name lookup: libxml2's reader keeps element names and namespace URIs in its
/// dictionary, so after interning our vocabulary once with xmlTextReaderConstString, a node's name
/// is identified by pointer identity alone (no String per node).
struct NameTable {
    private var names = PointerTable()
    private var namespaces = PointerTable()

    enum Name: UInt8 {
        case rss, RDF, channel, feed, item, entry, title, link, description, summary, content, encoded
        case guid, id, pubDate, published, updated, issued, modified, created, date, creator
        case author, name, language, ttl, enclosure, source, thumbnail, group, duration, image
        case videoId, origLink
    }

    static let nameList: [(String, Name)] = [
        ("rss", .rss), ("RDF", .RDF), ("channel", .channel), ("feed", .feed), ("item", .item),
        ("entry", .entry), ("title", .title), ("link", .link), ("description", .description),
        ("summary", .summary), ("content", .content), ("encoded", .encoded), ("guid", .guid),
        ("id", .id), ("pubDate", .pubDate), ("published", .published), ("updated", .updated),
        ("issued", .issued), ("modified", .modified), ("created", .created), ("date", .date),
        ("creator", .creator), ("author", .author), ("name", .name), ("language", .language),
        ("ttl", .ttl), ("enclosure", .enclosure), ("source", .source), ("thumbnail", .thumbnail),
        ("group", .group), ("duration", .duration), ("image", .image), ("videoId", .videoId),
        ("origLink", .origLink),
    ]

    static let namespaceList: [(String, Namespace)] = [
        ("http://purl.org/rss/1.0/", .rss10), ("http://my.netscape.com/rdf/simple/0.9/", .rss090),
        ("http://backend.userland.com/rss2", .userlandRSS2), ("http://blogs.law.harvard.edu/tech/rss", .userlandRSS2),
        ("http://www.w3.org/2005/Atom", .atom10), ("http://purl.org/atom/ns#", .atom03),
        ("http://www.w3.org/1999/02/22-rdf-syntax-ns#", .rdf),
        ("http://purl.org/rss/1.0/modules/content/", .content),
        ("http://purl.org/dc/elements/1.1/", .dc), ("http://purl.org/dc/terms/", .dcterms),
        ("http://search.yahoo.com/mrss/", .media), ("http://search.yahoo.com/mrss", .media),
        ("http://www.itunes.com/dtds/podcast-1.0.dtd", .itunes),
        ("http://www.youtube.com/xml/schemas/2015", .youtube),
        ("http://rssnamespace.org/feedburner/ext/1.0", .feedburner),
        ("http://www.w3.org/1999/xhtml", .xhtml),
    ]

    /// Extension namespaces only: the core ones (RSS 1.0/0.90, Atom, RDF) decide the format and
    /// stay exact. Built once per process (it was rebuilt for every document).
    static let tolerantNamespaces: [String: Namespace] = {
        let extensions: Set<Namespace> = [.content, .dc, .dcterms, .media, .itunes, .youtube, .feedburner]
        var tolerant: [String: Namespace] = [:]
        for (s, n) in namespaceList where extensions.contains(n) { tolerant[NameTable.tolerantKey(s)] = n }
        return tolerant
    }()

    init(reader: xmlTextReaderPtr) {
        for (s, n) in Self.nameList {
            if let p = xmlTextReaderConstString(reader, s) { names.set(UnsafeRawPointer(p), n.rawValue) }
        }
        for (s, n) in Self.namespaceList {
            if let p = xmlTextReaderConstString(reader, s) { namespaces.set(UnsafeRawPointer(p), n.rawValue) }
        }
    }

    /// Known extension namespaces match whatever their case, trailing slash or http/https
    /// (`http://www.itunes.com/DTDs/Podcast-1.0.dtd`, `http://purl.org/rss/1.0/modules/content`):
    /// real podcast feeds lost durations, authors and content:encoded to these spellings. The
    /// answer is remembered per interned URI, so each spelling is normalised once per document.
    @inline(__always)
    mutating func namespace(_ uri: UnsafePointer<xmlChar>?) -> Namespace {
        guard let uri else { return .none }
        if let known = namespaces.get(UnsafeRawPointer(uri)) { return Namespace(rawValue: known)! }
        let resolved = Self.tolerantNamespaces[NameTable.tolerantKey(String(cString: uri))] ?? .other
        namespaces.set(UnsafeRawPointer(uri), resolved.rawValue)
        return resolved
    }

    static func tolerantKey(_ uri: String) -> String {
        var key = Substring(uri.lowercased())
        for scheme in ["http://", "https://"] where key.hasPrefix(scheme) { key = key.dropFirst(scheme.count) }
        while key.last == "/" || key.last == "#" { key = key.dropLast() }
        return String(key)
    }

    @inline(__always)
    func name(_ local: UnsafePointer<xmlChar>?) -> Name? {
        guard let local else { return nil }
        return names.get(UnsafeRawPointer(local)).flatMap(Name.init(rawValue:))
    }

    /// `atomDocument`: the document is Atom, so its core vocabulary lives in `core`.
    func classify(ns: Namespace, name: Name?, atomDocument: Bool, core: Namespace) -> Tag {
        guard let name else { return .other }
        switch ns {
        case .content: return name == .encoded ? .contentEncoded : .other
        case .dc:
            switch name {
            case .creator: return .dcCreator
            case .date: return .dcDate
            case .language: return .dcLanguage
            case .title: return .dcTitle
            default: return .other
            }
        case .dcterms: return name == .modified ? .modified : name == .created ? .created : name == .issued ? .issued : .other
        case .media:
            switch name {
            case .content: return .mediaContent
            case .thumbnail: return .mediaThumbnail
            case .group: return .mediaGroup
            case .description: return .mediaDescription
            default: return .other
            }
        case .itunes:
            switch name {
            case .duration: return .itunesDuration
            case .image: return .itunesImage
            case .author: return .itunesAuthor
            case .summary: return .itunesSummary
            default: return .other
            }
        case .youtube: return name == .videoId ? .ytVideoId : .other
        case .feedburner: return name == .origLink ? .origLink : .other
        case .rdf: return name == .RDF ? .rdfRoot : .other
        case .atom10 where !atomDocument && core != .atom10, .atom03 where !atomDocument:
            return name == .link ? .atomLink : .other
        default:
            break
        }
        // Core vocabulary: the document's own namespace (RSS also accepts no namespace).
        guard ns == core || (!atomDocument && (ns == .none || ns == .rss10 || ns == .rss090 || ns == .userlandRSS2)) else {
            return .other
        }
        switch name {
        case .rss: return .rss
        case .channel: return .channel
        case .feed: return .feed
        case .item: return .item
        case .entry: return .entry
        case .title: return .title
        case .link: return .link
        case .description: return .description
        case .summary: return .summary
        case .content: return .content
        case .guid: return .guid
        case .id: return .id
        case .pubDate: return .pubDate
        case .published: return .published
        case .updated: return .updated
        case .issued: return .issued
        case .modified: return .modified
        case .created: return .created
        case .author: return .author
        case .name: return .name
        case .language: return .language
        case .ttl: return .ttl
        case .enclosure: return .enclosure
        case .source: return .source
        default: return .other
        }
    }
}

/// Interned pointer -> small value, open addressing over plain arrays. Not a Dictionary: this is
/// asked twice per element, and the Dictionary's hashing was ~1% of `--dump-feed`, its generic
/// metadata ~0.1 ms of every start-up that parses a feed. Grows at half full, so a document
/// declaring many namespaces stays linear.
struct PointerTable {
    private var keys = [UInt](repeating: 0, count: 128)
    private var values = [UInt8](repeating: 0, count: 128)
    private var count = 0

    @inline(__always)
    private static func slot(_ key: UInt, mask: Int) -> Int {
        // Fibonacci hashing of the address; interned strings are at least 8-byte aligned.
        Int(truncatingIfNeeded: (UInt64(key) &* 0x9E37_79B9_7F4A_7C15) >> 40) & mask
    }

    func get(_ pointer: UnsafeRawPointer) -> UInt8? {
        let key = UInt(bitPattern: pointer)
        let mask = keys.count - 1
        var index = Self.slot(key, mask: mask)
        while true {
            let stored = keys[index]
            if stored == key { return values[index] }
            if stored == 0 { return nil }
            index = (index + 1) & mask
        }
    }

    mutating func set(_ pointer: UnsafeRawPointer, _ value: UInt8) {
        let key = UInt(bitPattern: pointer)
        if (count + 1) * 2 > keys.count { grow() }
        let mask = keys.count - 1
        var index = Self.slot(key, mask: mask)
        while keys[index] != 0 && keys[index] != key { index = (index + 1) & mask }
        if keys[index] == 0 { count += 1 }
        keys[index] = key
        values[index] = value
    }

    private mutating func grow() {
        let oldKeys = keys, oldValues = values
        keys = [UInt](repeating: 0, count: oldKeys.count * 2)
        values = [UInt8](repeating: 0, count: oldKeys.count * 2)
        count = 0
        for (key, value) in zip(oldKeys, oldValues) where key != 0 {
            set(UnsafeRawPointer(bitPattern: key)!, value)
        }
    }
}
