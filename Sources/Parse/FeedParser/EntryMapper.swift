internal import CanonicalURL
internal import PulseModel

/// Raw item facts -> FeedEntry per contract section 3, or a drop with its reason.
enum ItemOutcome {
    case entry(FeedEntry, position: Int)
    case dropped(DroppedEntry)
}

enum EntryMapper {
    static func map(_ item: ItemBuilder, header: FeedHeader, baseURL: String?, options: FeedParserOptions) -> ItemOutcome {
        let base = item.base ?? baseURL
        var images: [String] = []  // first <img> of each HTML field, in field order

        // Title (RSS 2.0 asks for a title or a description: a missing one is made after the summary).
        var titleImages: [String] = []
        let title = item.title.map { inlineText($0, images: &titleImages) } ?? ""
        var cappedTitle = TextSanitizer.truncate(title, cap: FieldLimits.title)

        // Link: feedburner origLink, RSS link, Atom alternate, permalink guid, YouTube watch URL,
        // then an audio/video enclosure (podcast episodes often have no page of their own).
        let media = (item.enclosures + item.mediaContents).first {
            MediaFields.kind(type: $0.type, medium: $0.medium, url: $0.url) != nil && StoredURL.check($0.url) != nil
        }
        let videoID = item.ytVideoID.flatMap(youtubeID)
        var url: String?
        var sawLink = false
        func consider(_ candidate: String?) {
            guard url == nil, let candidate else { return }
            sawLink = true
            url = StoredURL.check(candidate)
        }
        consider(item.origLink)
        consider(item.link)
        consider(item.alternateLink)
        if url == nil, let guid = item.guid, item.guidIsPermaLink, URLReference.hasScheme(guid.trimming(" \t\r\n")) {
            consider(guid)
        }
        if url == nil, let videoID { consider(watchURL(videoID)) }
        if url == nil, videoID == nil, let media { consider(media.url) }
        let droppedTitle = cappedTitle.isEmpty ? nil : cappedTitle
        guard sawLink else { return .dropped(DroppedEntry(reason: "missing link", title: droppedTitle)) }
        guard let url else { return .dropped(DroppedEntry(reason: "unsafe link", title: droppedTitle)) }

        var entry = FeedEntry(title: cappedTitle, url: url)
        if let guid = item.guid {
            let clean = TextSanitizer.inline(guid)
            if !clean.isEmpty { entry.guid = TextSanitizer.truncate(clean, cap: FieldLimits.guid, boundaries: false) }
        }
        entry.publishedAt = item.published.flatMap(FeedDate.parse) ?? item.dcDate.flatMap(FeedDate.parse)
        entry.updatedAt = item.updated.flatMap(FeedDate.parse)

        // Author: Atom name, RSS author ("email (Name)"), dc:creator, itunes:author, then feed level.
        var author: String?
        func tryAuthor(_ candidate: String?) {
            guard author == nil, let candidate else { return }
            let clean = TextSanitizer.inline(candidate)
            if !clean.isEmpty { author = clean }
        }
        tryAuthor(item.authorName)
        if author == nil { tryAuthor(item.author.map(rssAuthorName)) }
        tryAuthor(item.dcCreator)
        tryAuthor(item.itunesAuthor)
        tryAuthor(header.authorName)
        tryAuthor(header.itunesAuthor)
        entry.author = author.map { TextSanitizer.truncate($0, cap: FieldLimits.author) }

        // Content (plain text, paragraphs) and summary.
        var contentText: String?
        if let raw = item.contentEncoded ?? item.content {
            let text = blockText(raw, images: &images)
            if !text.isEmpty { contentText = text }
        }
        if let text = contentText {
            entry.content = TextSanitizer.truncate(text, cap: min(max(0, options.maxContentLength), FieldLimits.content))
        }
        for raw in [item.description, item.summary, item.itunesSummary, item.mediaDescription] {
            guard let raw, entry.summary == nil else { continue }
            // Short input cannot need the paragraph-aware cut: go straight to one line.
            let short = raw.bytes.count <= FieldLimits.summary
            let text = plainText(raw, multiline: !short, images: &images)
            if !text.isEmpty {
                entry.summary = short ? text : TextSanitizer.inline(TextSanitizer.truncate(text, cap: FieldLimits.summary))
            }
        }
        if entry.summary == nil, let text = contentText {
            entry.summary = TextSanitizer.inline(TextSanitizer.truncate(text, cap: FieldLimits.summary))
        }

        if cappedTitle.isEmpty {
            cappedTitle = entry.summary.map(titleFromText) ?? ""
            guard !cappedTitle.isEmpty else { return .dropped(DroppedEntry(reason: "missing title", title: nil)) }
            entry.title = cappedTitle
        }

        // Media: YouTube entries, else the first audio/video enclosure.
        if let videoID {
            entry.youtubeVideoID = videoID
            entry.mediaType = "video"
            entry.mediaURL = watchURL(videoID)
        } else if let media {
            entry.mediaType = MediaFields.kind(type: media.type, medium: media.medium, url: media.url)
            entry.mediaURL = StoredURL.check(media.url)
            entry.mediaMimeType = MediaFields.mimeType(media.type)
            entry.mediaDurationSeconds = MediaFields.duration(item.itunesDuration) ?? media.durationSeconds
                ?? item.mediaContents.first(where: { $0.url == media.url })?.durationSeconds
        }

        // Thumbnail, in order of how deliberately the publisher chose it (evaluated lazily).
        // media:thumbnail (with its declared size) and HTML images (with theirs) were vetted by
        // ImageCandidate when read; the others are vetted here.
        func safe(_ url: String?) -> String? { url.flatMap(StoredURL.check) }
        func picture(_ url: String?) -> String? { safe(url).flatMap { ImageCandidate.isTracker($0) ? nil : $0 } }
        entry.thumbnailURL = safe(item.mediaThumbnail)
            ?? picture(item.mediaContents.first { MediaFields.isImage(type: $0.type, medium: $0.medium, url: $0.url) }?.url)
            ?? picture(item.enclosures.first { MediaFields.isImage(type: $0.type, medium: $0.medium, url: $0.url) }?.url)
            ?? picture(item.itunesImage)
            ?? images.lazy.compactMap { src -> String? in
                let trimmed = src.trimming(" \t\r\n")
                return safe(URLReference.hasScheme(trimmed) ? trimmed : base.flatMap { URLReference.resolve(trimmed, against: $0) })
            }.first
            ?? (entry.mediaType == "podcast" ? safe(header.itunesImage) : nil)
        return .entry(entry, position: item.position)
    }

    /// A title made from an item's text: its first sentence, at most 140 characters, cut at a
    /// word boundary when longer.
    static func titleFromText(_ text: String) -> String {
        let limit = 140
        var end = text.endIndex
        var i = text.startIndex
        while i < text.endIndex {
            let c = text[i]
            let next = text.index(after: i)
            if c == "." || c == "!" || c == "?" || c == "\n", next == text.endIndex || text[next] == " " || text[next] == "\n" {
                end = c == "\n" ? i : next
                break
            }
            i = next
        }
        var sentence = Substring(text[..<end])
        if sentence.count > limit {
            sentence = sentence.prefix(limit)
            if let space = sentence.lastIndex(of: " "), sentence.distance(from: sentence.startIndex, to: space) > limit / 3 {
                sentence = sentence[..<space]
            }
        }
        return String(sentence).trimming(" \t\r\n")
    }

    static func blockText(_ raw: RawText, images: inout [String]) -> String {
        plainText(raw, multiline: true, images: &images)
    }

    static func inlineText(_ raw: RawText, images: inout [String]) -> String {
        plainText(raw, multiline: false, images: &images)
    }

    /// Text of a field: HTML goes through HTMLText unless it has no markup at all.
    static func plainText(_ raw: RawText, multiline: Bool, images: inout [String]) -> String {
        let e = raw.bytes.withUnsafeBufferPointer { bytes in
            raw.mode != .text && HTMLText.mayContainMarkup(bytes) ? HTMLText.extract(bytes: bytes) : nil
        }
        guard let e else { return raw.bytes.withUnsafeBufferPointer { TextSanitizer.cleanString($0, multiline: multiline) } }
        if let img = e.firstImageSource { images.append(img) }
        return multiline ? e.text : TextSanitizer.inline(e.text)
    }

    /// RSS `<author>` is "email (Name)" by spec: keep the name when present.
    static func rssAuthorName(_ s: String) -> String {
        let t = s.trimming(" \t\r\n")
        if t.hasSuffix(")"), let open = t.firstIndex(of: "("), t[..<open].contains("@") {
            let name = t[t.index(after: open)..<t.index(before: t.endIndex)]
            if !name.isEmpty { return String(name) }
        }
        return t
    }

    static func youtubeID(_ raw: String) -> String? {
        let id = raw.trimming(" \t\r\n")
        guard (6...20).contains(id.utf8.count), id.utf8.allSatisfy({ c in
            (c | 0x20 >= 97 && c | 0x20 <= 122) || (c >= 48 && c <= 57) || c == 45 || c == 95
        }) else { return nil }
        return id
    }

    static func watchURL(_ id: String) -> String { "https://www.youtube.com/watch?v=" + id }
}

/// Keeps at most `maxItems` entries, preferring the newest by date (undated ones rank after
/// dated ones, then by document order); everything else is counted as dropped.
struct ItemCollector {
    let maxItems: Int
    let maxListed: Int
    var entries: [FeedEntry] = []
    var positions: [Int] = []
    var dropped: [DroppedEntry] = []
    var droppedCount = 0
    var droppedByCap = 0
    var trimmed = false

    init(maxItems: Int, maxListed: Int) {
        self.maxItems = max(0, maxItems)
        self.maxListed = maxListed
    }

    mutating func add(_ outcome: ItemOutcome) {
        switch outcome {
        case .entry(let e, let position):
            entries.append(e)
            positions.append(position)
            if entries.count >= 2 * maxItems + 64 { trim() }
        case .dropped(let d):
            drop(d)
        }
    }

    mutating func drop(_ d: DroppedEntry) {
        droppedCount += 1
        if dropped.count < maxListed { dropped.append(d) }
    }

    mutating func trim() {
        guard entries.count > maxItems else { return }
        trimmed = true
        var order = Array(entries.indices)
        order.sort { a, b in
            switch (entries[a].effectiveDate, entries[b].effectiveDate) {
            case let (x?, y?): return x != y ? x > y : positions[a] < positions[b]
            case (_?, nil): return true
            case (nil, _?): return false
            case (nil, nil): return positions[a] < positions[b]
            }
        }
        for i in order[maxItems...] {
            droppedByCap += 1
            drop(DroppedEntry(reason: "over item cap", title: entries[i].title))
        }
        // Keep the survivors in document order.
        let kept = order[..<maxItems].sorted { positions[$0] < positions[$1] }
        entries = kept.map { entries[$0] }
        positions = kept.map { positions[$0] }
    }

    mutating func finish() -> [FeedEntry] {
        trim()
        return entries
    }
}
