/// What a download is for; it picks the default decoded-body cap and the Accept header.
public enum FetchKind: String, Sendable, Hashable {
    case feed, page, image
    /// A WebSub hub request (subscribe/unsubscribe POST): the answer is a status, not a document.
    case hub

    /// Decoded (after Content-Encoding) body cap in bytes.
    public var defaultBodyLimit: Int {
        switch self {
        case .feed: return 16 * 1024 * 1024
        case .page: return 5 * 1024 * 1024
        case .image: return 256 * 1024
        case .hub: return 64 * 1024
        }
    }

    var acceptHeader: String {
        switch self {
        case .feed:
            return "application/rss+xml, application/atom+xml, application/feed+json, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.5"
        case .page:
            return "text/html, application/xhtml+xml;q=0.9, */*;q=0.5"
        case .image:
            return "image/avif, image/webp, image/png, image/jpeg, image/*;q=0.8"
        case .hub:
            return "*/*"
        }
    }
}

public struct FetchRequest: Sendable, Hashable {
    public var url: String
    public var kind: FetchKind
    /// Validator from the last successful response, sent as If-None-Match.
    public var etag: String?
    /// Validator from the last successful response, sent verbatim as If-Modified-Since.
    public var lastModified: String?
    /// The source this download is for; Retry-After answers are remembered per key.
    public var sourceKey: String?
    /// Overrides `kind.defaultBodyLimit` (decoded bytes).
    public var maxBodyBytes: Int?
    /// When set, the request is a POST of this `application/x-www-form-urlencoded` body (WebSub
    /// subscription requests); redirects are then not followed, as a hub has no reason to send one.
    public var form: [UInt8]?

    public init(
        url: String, kind: FetchKind, etag: String? = nil, lastModified: String? = nil,
        sourceKey: String? = nil, maxBodyBytes: Int? = nil
    ) {
        self.url = url
        self.kind = kind
        self.etag = etag
        self.lastModified = lastModified
        self.sourceKey = sourceKey
        self.maxBodyBytes = maxBodyBytes
    }

    public var bodyLimit: Int { maxBodyBytes ?? kind.defaultBodyLimit }
}

public struct FetchResponse: Sendable, Hashable {
    /// Final HTTP status (2xx, or 304 when `notModified`).
    public var status: Int
    /// URL of the last hop after redirects.
    public var finalURL: String
    /// Decoded body bytes, undecoded as to charset: the caller reads `contentType` for that.
    public var body: [UInt8]
    public var contentType: String?
    public var etag: String?
    public var lastModified: String?
    /// Retry-After sent with a successful response, if any.
    public var retryAfter: Duration?
    /// `max-age` from Cache-Control, if given.
    public var cacheMaxAge: Duration?
    /// True for 304 Not Modified: success, no body; keep the stored validators if none came back.
    public var notModified: Bool
    /// Body bytes as received before content decoding (nil when libcurl did not report it).
    public var bytesOnWire: Int?
    /// The `Link` header(s), joined with ", " (WebSub discovery reads `rel="hub"` and `rel="self"`).
    public var link: String?
}
