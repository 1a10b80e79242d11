import FoundationEssentials
import CanonicalURL
import PulseModel
import HTMLDocument
import TextSupport

/// Page metadata read from `<meta>` tags and JSON-LD, before any title cleanup.
public struct PageMetadata: Sendable, Equatable {
    public var title: String?
    public var byline: String?
    public var excerpt: String?
    public var siteName: String?
    public var publishedTime: String?
    public var imageURL: String?
    /// The article object's `articleBody` (JSON-LD), untouched: plain text or markup, as the
    /// publisher wrote it. Read only when the page's markup holds no article (client-rendered).
    public var articleBody: String?

    public init(title: String? = nil) { self.title = title }
}

public enum OpenGraph {
    /// Bytes of a page read when only its head matters.
    public static let headByteLimit = 256 * 1024

    /// The lead image from a page's raw bytes, reading only up to `</head>` (or 256 KB).
    public static func imageURL(inPage bytes: [UInt8], contentType: String? = nil, pageURL: String) -> String? {
        let head = headPrefix(bytes)
        var limits = HTMLParseLimits()
        limits.leavesOutScriptAndStyleText = true   // only meta, link, base and JSON-LD are read
        guard let document = try? HTMLDocument.parse(head, contentType: contentType, limits: limits) else { return nil }
        return imageURL(in: document, pageURL: pageURL)
    }

    /// Everything up to and including `</head>`, at most `headByteLimit` bytes.
    public static func headPrefix(_ bytes: [UInt8]) -> [UInt8] {
        let limit = min(bytes.count, headByteLimit)
        let marker = Array("</head".utf8)
        var index = 0
        while index + marker.count <= limit {
            if bytes[index] == 0x3C, bytes[index + 1] == 0x2F,
               (0..<marker.count).allSatisfy({ bytes[index + $0] | 0x20 == marker[$0] | 0x20 }) {
                return Array(bytes[..<min(index + marker.count + 1, limit)])
            }
            index += 1
        }
        return Array(bytes[..<limit])
    }

    /// The base for relative URLs: `<base href>` resolved against the page URL.
    public static func baseURL(of document: HTMLDocument, pageURL: String) -> String {
        if let base = document.firstElement(named: "base"), let href = document.attribute("href", of: base),
           let resolved = SafeURL.absoluteHTTP(href, base: pageURL) {
            return resolved
        }
        return pageURL
    }

    /// The page's own absolute http(s) URL as it declares it (`<link rel=canonical>`, then
    /// `og:url`): the stand-in base for a saved page read from a file with no URL given.
    public static func declaredURL(in document: HTMLDocument) -> String? {
        for link in document.elements(named: "link") {
            let rel = (document.attribute("rel", of: link) ?? "").lowercased().split(separator: " ")
            if rel.contains("canonical"), let href = document.attribute("href", of: link),
               let url = StoredURL.check(href.trimmingASCIIWhitespace()) {
                return url
            }
        }
        for meta in document.elements(named: "meta") where document.attribute("property", of: meta)?.lowercased() == "og:url" {
            if let content = document.attribute("content", of: meta), let url = StoredURL.check(content.trimmingASCIIWhitespace()) {
                return url
            }
        }
        return nil
    }

    static let metaImageKeys = ["og:image", "og:image:secure_url", "og:image:url", "twitter:image", "twitter:image:src"]

    /// The first acceptable image among og:image, og:image:secure_url, og:image:url,
    /// twitter:image, twitter:image:src, `<link rel=image_src>`, then JSON-LD `image`.
    public static func imageURL(in document: HTMLDocument, pageURL: String) -> String? {
        imageURL(in: document, pageURL: pageURL, jsonLD: nil)
    }

    static func imageURL(in document: HTMLDocument, pageURL: String, jsonLD: [JSONLDObject]?) -> String? {
        let base = baseURL(of: document, pageURL: pageURL)
        var byKey: [String: [String]] = [:]
        for meta in document.elements(named: "meta") {
            let key = TextScan.trimmingWhitespace(
                document.attribute("property", of: meta) ?? document.attribute("name", of: meta) ?? "").lowercased()
            guard metaImageKeys.contains(key), let content = document.attribute("content", of: meta) else { continue }
            byKey[key, default: []].append(content)
        }
        var candidates = metaImageKeys.flatMap { byKey[$0] ?? [] }
        for link in document.elements(named: "link") {
            let rel = (document.attribute("rel", of: link) ?? "").lowercased().split(separator: " ")
            if rel.contains("image_src"), let href = document.attribute("href", of: link) { candidates.append(href) }
        }
        for candidate in candidates {
            if let url = acceptableImage(candidate, base: base) { return url }
        }
        return jsonLDImage(jsonLD ?? JSONLD.objects(in: document), base: base)
    }

    static func acceptableImage(_ raw: String, base: String) -> String? {
        guard let url = SafeURL.absoluteHTTP(raw, base: base), !ImagePlaceholder.isPlaceholder(url) else { return nil }
        return url
    }

    /// JSON-LD `image`: a string, an array, an ImageObject (`url`/`contentUrl`), also inside
    /// `@graph`; article-typed objects are tried first.
    static func jsonLDImage(_ objects: [JSONLDObject], base: String) -> String? {
        let ordered = objects.filter(\.isArticle) + objects.filter { !$0.isArticle }
        for object in ordered {
            for raw in object.images {
                if let url = acceptableImage(raw, base: base) { return url }
            }
        }
        return nil
    }
}
