import CanonicalURL
import FoundationEssentials
import Postgres
import PulseModel
import TextSupport

/// A row ready for `articles`: every invariant of the data contract (section 3) already holds.
/// Denormalised source and category fields are added by the INSERT itself from the live rows.
public struct ArticleRow: Sendable, Equatable, Encodable {
    public var title: String
    public var summary: String?
    public var content: String?
    public var url: String
    public var urlHash: String
    public var imageURL: String?
    public var thumbnailURL: String?
    public var author: String?
    public var publishedAt: String
    public var mediaType: String?
    public var mediaURL: String?
    public var mediaDuration: Int?
    public var mediaMimeType: String?
    public var language: String
    /// True when `language` was detected from the text, not copied from the source.
    public var languageDetected: Bool

    enum CodingKeys: String, CodingKey {
        case title, summary, content, url, author, language
        case urlHash = "url_hash", imageURL = "image_url", thumbnailURL = "thumbnail_url"
        case publishedAt = "published_at", mediaType = "media_type", mediaURL = "media_url"
        case mediaDuration = "media_duration", mediaMimeType = "media_mime_type"
        case languageDetected = "language_detected"
    }
}

/// Why a candidate was not stored.
public enum ArticleRejection: String, Error, Sendable, Equatable, CaseIterable {
    case missingTitle = "missing title"
    case unsafeURL = "unsafe link"
}

/// Turns untrusted candidates into rows that keep the contract's invariants.
public struct ArticleRowBuilder: Sendable {
    /// Oldest and newest accepted publication dates relative to now (contract invariant 4).
    static let oldestPublication: TimeInterval = 10 * 365.25 * 86_400
    static let newestPublication: TimeInterval = 3_600

    public var now: Date
    public var sourceLanguage: String
    public var contentLimit: Int

    public init(now: Date, sourceLanguage: String, sourceMaxContentLength: Int?) {
        self.now = now
        self.sourceLanguage = sourceLanguage
        self.contentLimit = min(sourceMaxContentLength ?? FieldLimits.content, FieldLimits.content)
    }

    public func build(_ candidate: ArticleCandidate) -> Result<ArticleRow, ArticleRejection> {
        guard let title = StoredText.singleLine(candidate.title, limit: FieldLimits.title) else {
            return .failure(.missingTitle)
        }
        let canonical = CanonicalURL.canonicalize(TextScan.trimmingWhitespace(candidate.link))
        guard let url = Self.storedURL(canonical) else { return .failure(.unsafeURL) }
        let media = MediaType(rawValue: candidate.mediaType?.lowercased() ?? "")
        return .success(ArticleRow(
            title: title,
            summary: StoredText.multiLine(candidate.summary, limit: FieldLimits.summary),
            content: StoredText.multiLine(candidate.content, limit: max(contentLimit, 1)),
            url: url,
            urlHash: CanonicalURL.hash(url),
            // The Go worker's order, which the app depends on (it shows only image_url): the feed's
            // thumbnail now, replaced by the page's og:image when enrichment finds one.
            imageURL: candidate.imageURL.flatMap(Self.storedURL) ?? candidate.thumbnailURL.flatMap(Self.storedURL),
            thumbnailURL: candidate.thumbnailURL.flatMap(Self.storedURL),
            author: StoredText.singleLine(candidate.author, limit: FieldLimits.author),
            publishedAt: PostgresTimestamp.format(clampedPublication(candidate.publishedAt ?? candidate.updatedAt)),
            mediaType: media?.rawValue,
            mediaURL: media == nil ? nil : candidate.mediaURL.flatMap(Self.storedURL),
            mediaDuration: media == nil ? nil : candidate.mediaDurationSeconds.flatMap(Self.duration),
            mediaMimeType: media == nil ? nil : candidate.mediaMimeType.flatMap(Self.mimeType),
            language: Self.language(candidate.language) ?? Self.language(sourceLanguage) ?? "en",
            languageDetected: Self.language(candidate.language) != nil
        ))
    }

    /// Published date, else updated date, else now; clamped to [now - 10 years, now + 1 hour].
    func clampedPublication(_ date: Date?) -> Date {
        guard let date else { return now }
        let earliest = now.addingTimeInterval(-Self.oldestPublication)
        let latest = now.addingTimeInterval(Self.newestPublication)
        return min(max(date, earliest), latest)
    }

    /// The pipeline's one URL rule (`StoredURL`): absolute http(s), host, no userinfo, no
    /// control/bidi characters, <= 2048 characters, no localhost, and no private, loopback or
    /// obfuscated IP-literal host.
    public static func storedURL(_ raw: String) -> String? {
        guard case .success(let url) = StoredURL.validate(raw, maxLength: FieldLimits.url) else { return nil }
        return url
    }

    /// Must look like `type/subtype` (RFC 6838 restricted names), at most 50 characters.
    static func mimeType(_ raw: String) -> String? {
        let value = raw.split(separator: ";").first.map { TextScan.trimming($0, while: TextScan.isBlank).lowercased() } ?? ""
        guard value.count <= FieldLimits.mediaMimeType else { return nil }
        let parts = value.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789!#$&-^_.+")
        for part in parts {
            guard let first = part.first, first.isLetter || first.isNumber,
                  part.allSatisfy({ allowed.contains($0) }) else { return nil }
        }
        return value
    }

    static func duration(_ seconds: Int) -> Int? {
        seconds > 0 ? min(seconds, FieldLimits.mediaDurationSeconds) : nil
    }

    /// A bare lowercase ISO 639-1 code, or nil (contract invariant 2).
    static func language(_ raw: String?) -> String? {
        guard let raw else { return nil }
        let code = raw.prefix(while: { $0 != "-" && $0 != "_" }).lowercased()
        guard code.count == 2, code.allSatisfy({ $0 >= "a" && $0 <= "z" }) else { return nil }
        return code
    }
}
