/// How a captured text field is to be read.
enum TextMode: UInt8 {
    case text   // plain text (Atom type="text")
    case html   // escaped HTML (RSS description, Atom type="html")
    case xhtml  // inline XHTML, re-serialised by the walker
}

/// A captured field as libxml2 gave it: UTF-8, valid (the document was checked and decoded before
/// parsing). Kept as bytes: the text fields are read again as bytes (HTMLText, TextSanitizer), and a
/// String made in between was validated and copied for nothing (~2.5% of --dump-feed's CPU).
struct RawText {
    var bytes: [UInt8]
    var mode: TextMode
    /// The field as it is, for those kept whole (links, guid, dates, names).
    var value: String { String(decoding: bytes, as: UTF8.self) }
}

struct Enclosure {
    var url: String
    var type: String?
    var medium: String?
    var durationSeconds: Int?
}

/// Raw facts gathered for one item/entry while the reader walks it; mapped by EntryMapper.
struct ItemBuilder {
    var title: RawText?
    var link: String?            // RSS <link>, resolved
    var alternateLink: String?   // Atom rel="alternate" (html preferred), resolved
    var anyLink: String?         // first Atom link of another rel that could stand in
    var origLink: String?
    var guid: String?
    var guidIsPermaLink = true
    var description: RawText?
    var summary: RawText?
    var content: RawText?
    var contentEncoded: RawText?
    var itunesSummary: RawText?
    var mediaDescription: RawText?
    var published: String?
    var updated: String?
    var dcDate: String?
    var author: String?
    var authorName: String?
    var dcCreator: String?
    var itunesAuthor: String?
    var itunesDuration: String?
    var itunesImage: String?
    var ytVideoID: String?
    var enclosures: [Enclosure] = []
    var mediaContents: [Enclosure] = []
    var mediaThumbnail: String?
    /// Base for relative URLs found inside the item's HTML.
    var base: String?
    var position = 0
}

/// Channel / feed level facts.
struct FeedHeader {
    var title: RawText?
    /// `dc:title`, used when the channel has no title of its own.
    var dcTitle: RawText?
    var link: String?
    var language: String?
    var ttl: String?
    var authorName: String?
    var itunesAuthor: String?
    var itunesImage: String?
    var hub: String?
    var selfLink: String?
}

/// Which field a text capture fills when its element closes.
enum Field: UInt8 {
    case itemTitle, itemLink, itemDescription, itemSummary, itemContent, itemContentEncoded
    case itemGuid, itemPublished, itemUpdated, itemDcDate, itemAuthor, itemAuthorName, itemDcCreator
    case itemItunesAuthor, itemItunesDuration, itemItunesSummary, itemMediaDescription
    case itemYtVideoID, itemOrigLink
    case feedTitle, feedDcTitle, feedLink, feedLanguage, feedTTL, feedAuthorName, feedItunesAuthor

    /// Raw bytes kept per field before mapping (bounded memory per item).
    func byteLimit(contentCap: Int) -> Int {
        switch self {
        case .itemDescription, .itemSummary, .itemContent, .itemContentEncoded, .itemItunesSummary, .itemMediaDescription:
            return min(8 << 20, max(256 << 10, contentCap * 8))
        default:
            return 16 << 10
        }
    }
}
