import FoundationEssentials
// Public: the options' defaults are PulseModel's (the item cap of `fetch.max_items_per_feed`, the content cap).
public import PulseModel

/// The dialect a document was recognised as (from its root element, namespace and version).
public enum FeedFormat: String, Sendable, Equatable, CaseIterable {
    case rss090, rss091, rss092, rss20, rss10, atom03, atom10
}

/// One parsed feed: channel-level facts plus the entries that passed the mapping rules.
public struct FeedDocument: Sendable, Equatable {
    public var format: FeedFormat
    /// True when the document was not well-formed and libxml2's recovery mode produced it.
    public var recovered: Bool
    /// The charset the bytes were decoded from, and whether invalid bytes had to be repaired.
    public var encoding: String
    public var encodingRepaired: Bool
    public var title: String?
    public var link: String?
    public var language: String?
    public var ttlMinutes: Int?
    /// Entries in document order (after the item cap kept the newest).
    public var items: [FeedEntry]
    /// Entries that were dropped, with the reason (listing capped at `FeedParserOptions.maxDroppedListed`).
    public var dropped: [DroppedEntry]
    /// How many entries were dropped in total (may exceed `dropped.count`).
    public var droppedCount: Int
    /// How many of them the item cap dropped (the oldest; the cap keeps the newest).
    public var droppedByCap: Int = 0
    /// WebSub discovery: the feed's `<link rel="hub">` and `<link rel="self">` (absolute http(s),
    /// first of each), nil when absent or unsafe.
    public var hub: String? = nil
    public var selfURL: String? = nil
}

/// One item/entry mapped to the article row shape (contract section 3): strings are sanitised,
/// capped and valid UTF-8; URLs are absolute http(s).
public struct FeedEntry: Sendable, Equatable {
    public var title: String
    public var url: String
    public var guid: String?
    public var publishedAt: Date?
    public var updatedAt: Date?
    public var author: String?
    public var summary: String?
    public var content: String?
    public var thumbnailURL: String?
    /// "podcast", "video" or nil.
    public var mediaType: String?
    public var mediaURL: String?
    public var mediaMimeType: String?
    public var mediaDurationSeconds: Int?
    public var youtubeVideoID: String?

    public init(title: String, url: String) {
        self.title = title
        self.url = url
    }

    /// The date the contract stores: published, else updated (caller falls back to ingest time).
    public var effectiveDate: Date? { publishedAt ?? updatedAt }
}

public struct DroppedEntry: Sendable, Equatable {
    /// "missing title", "missing link", "unsafe link" or "over item cap".
    public var reason: String
    public var title: String?
}

public struct FeedParserOptions: Sendable {
    public var maxItems: Int
    public var maxDepth: Int
    public var cpuBudgetSeconds: Double
    public var maxContentLength: Int
    public var maxDroppedListed: Int = 1000

    /// The item cap's default is feeds.yaml's (`fetch.max_items_per_feed`), the content cap's the contract's.
    public init(maxItems: Int = FetchSettings().maxItemsPerFeed, maxDepth: Int = 256, cpuBudgetSeconds: Double = 2.0,
                maxContentLength: Int = FieldLimits.content) {
        self.maxItems = maxItems
        self.maxDepth = maxDepth
        self.cpuBudgetSeconds = cpuBudgetSeconds
        self.maxContentLength = min(max(0, maxContentLength), FieldLimits.content)
    }
}

public enum FeedParseError: Error, Sendable, Equatable, CustomStringConvertible {
    case empty
    case notAFeed(root: String)
    /// The document does not start with markup; `start` is its first line, shortened.
    case notXML(start: String)
    case xml(line: Int, message: String)
    case cpuBudgetExceeded
    case depthLimitExceeded(Int)
    /// Markup whose shape would cost the parser far more than its size (see MarkupLimits).
    case markupTooComplex(String)

    public var description: String {
        switch self {
        case .empty: return "empty document"
        case .notAFeed(let root): return "not a feed: root element <\(root)>"
        case .notXML(let start): return "not a feed: the document is not XML (it starts \"\(start)\")"
        case .xml(let line, let message): return "XML error at line \(line): \(message)"
        case .cpuBudgetExceeded: return "CPU budget exceeded"
        case .depthLimitExceeded(let limit): return "document nested deeper than \(limit) elements"
        case .markupTooComplex(let reason): return "markup too complex: \(reason)"
        }
    }
}

extension FeedParser {
    /// Convenience for Foundation callers (this file may import Foundation; files importing
    /// CLibXML2 must not, as libxml2's ICU headers clash with Foundation's bundled ICU).
    public static func parse(_ data: Data, contentType: String? = nil, baseURL: String? = nil,
                             options: FeedParserOptions = FeedParserOptions()) throws(FeedParseError) -> FeedDocument {
        try parse([UInt8](data), contentType: contentType, baseURL: baseURL, options: options)
    }
}
