/// Per-element rules: which elements fill which fields, at feed level and inside an item.
extension FeedWalker {
    mutating func feedElement(_ tag: Tag, parent: Tag, depth: Int, ns: Namespace) {
        let atHead = parent == .channel || (atomDocument && parent == .feed)
        if tag == .channel, ns == .rss090 { format = .rss090 }
        if parent == .author, tag == .name, atomDocument, stack.count >= 2, stack[stack.count - 2].tag == .feed {
            beginCapture(.feedAuthorName, depth: depth, mode: .text)
            return
        }
        guard atHead else { return }
        switch tag {
        case .title: beginCapture(.feedTitle, depth: depth, mode: textMode(), base64: isBase64())
        case .dcTitle: beginCapture(.feedDcTitle, depth: depth, mode: .text)
        case .link, .atomLink:
            if atomDocument || tag == .atomLink {
                let rel = attribute("rel") ?? "alternate"
                if rel == "alternate", header.link == nil { header.link = resolve(attribute("href")) }
                // WebSub discovery (W3C WebSub 4): the first hub and self links of the feed itself.
                if WebSubRel.names(rel, "hub"), header.hub == nil { header.hub = resolve(attribute("href")) }
                if WebSubRel.names(rel, "self"), header.selfLink == nil { header.selfLink = resolve(attribute("href")) }
            } else {
                beginCapture(.feedLink, depth: depth, mode: .text)
            }
        case .language, .dcLanguage: beginCapture(.feedLanguage, depth: depth, mode: .text)
        case .ttl: beginCapture(.feedTTL, depth: depth, mode: .text)
        case .itunesAuthor: beginCapture(.feedItunesAuthor, depth: depth, mode: .text)
        case .itunesImage: if header.itunesImage == nil { header.itunesImage = resolve(attribute("href")) }
        default: break
        }
    }

    mutating func itemElement(_ tag: Tag, parent: Tag, depth: Int) {
        // Media RSS may sit at any depth inside the item (media:group nests it).
        switch tag {
        case .mediaContent:
            if let url = resolve(attribute("url")) {
                let media = Enclosure(url: url, type: attribute("type"), medium: attribute("medium"),
                                      durationSeconds: MediaFields.duration(attribute("duration")))
                item?.mediaContents.append(media)
            }
            return
        case .mediaThumbnail:
            if item?.mediaThumbnail == nil, let url = resolve(attribute("url")),
               !ImageCandidate.isTracker(url, width: attribute("width"), height: attribute("height")) {
                item?.mediaThumbnail = url
            }
            return
        case .mediaDescription:
            beginCapture(.itemMediaDescription, depth: depth, mode: attribute("type") == "html" ? .html : .text)
            return
        default: break
        }
        if parent == .author, tag == .name, atomDocument {
            beginCapture(.itemAuthorName, depth: depth, mode: .text)
            return
        }
        guard parent == .item || parent == .entry else { return }
        switch tag {
        case .title: beginCapture(.itemTitle, depth: depth, mode: textMode(), base64: isBase64())
        case .link, .atomLink:
            if atomDocument || tag == .atomLink || attribute("href") != nil {
                atomLink()
            } else {
                beginCapture(.itemLink, depth: depth, mode: .text)
            }
        case .description: beginCapture(.itemDescription, depth: depth, mode: .html)
        case .summary: beginCapture(.itemSummary, depth: depth, mode: textMode(), base64: isBase64())
        case .content:
            if attribute("src") == nil {
                beginCapture(.itemContent, depth: depth, mode: textMode(), base64: isBase64())
            }
        case .contentEncoded: beginCapture(.itemContentEncoded, depth: depth, mode: .html)
        case .guid:
            let permaLink = attribute("isPermaLink")?.lowercased() != "false"
            item?.guidIsPermaLink = permaLink
            beginCapture(.itemGuid, depth: depth, mode: .text)
        case .id: beginCapture(.itemGuid, depth: depth, mode: .text)
        case .pubDate, .published, .issued, .created: beginCapture(.itemPublished, depth: depth, mode: .text)
        case .updated, .modified: beginCapture(.itemUpdated, depth: depth, mode: .text)
        case .dcDate: beginCapture(.itemDcDate, depth: depth, mode: .text)
        case .author: if !atomDocument { beginCapture(.itemAuthor, depth: depth, mode: .text) }
        case .dcCreator: beginCapture(.itemDcCreator, depth: depth, mode: .text)
        case .itunesAuthor: beginCapture(.itemItunesAuthor, depth: depth, mode: .text)
        case .itunesDuration: beginCapture(.itemItunesDuration, depth: depth, mode: .text)
        case .itunesSummary: beginCapture(.itemItunesSummary, depth: depth, mode: .text)
        case .itunesImage: if item?.itunesImage == nil, let url = resolve(attribute("href")) { item?.itunesImage = url }
        case .ytVideoId: beginCapture(.itemYtVideoID, depth: depth, mode: .text)
        case .origLink: beginCapture(.itemOrigLink, depth: depth, mode: .text)
        case .enclosure:
            if let url = resolve(attribute("url")) {
                let enclosure = Enclosure(url: url, type: attribute("type"), medium: nil, durationSeconds: nil)
                item?.enclosures.append(enclosure)
            }
        case .source:
            if atomDocument { skipDepth = depth }  // atom:source repeats feed metadata: ignore it
        default: break
        }
    }

    /// Atom `<link>` (or atom:link inside RSS): alternate -> the item link, enclosure -> media.
    private mutating func atomLink() {
        guard let href = resolve(attribute("href")) else { return }
        let rel = attribute("rel") ?? "alternate"
        let type = attribute("type")
        switch rel {
        case "alternate":
            let isHTML = type == nil || type == "text/html" || type == "application/xhtml+xml"
            if item?.alternateLink == nil || (isHTML && item?.anyLink != nil) {
                item?.alternateLink = href
                item?.anyLink = isHTML ? nil : href  // remember that the current one is not HTML
            }
        case "enclosure":
            item?.enclosures.append(Enclosure(url: href, type: type, medium: nil, durationSeconds: nil))
        default: break
        }
    }

    /// Atom 0.3 `mode="base64"`: the element's text is base64 of the content.
    private func isBase64() -> Bool { format == .atom03 && attribute("mode") == "base64" }

    /// Atom text construct type (1.0 `type`, 0.3 `type`/`mode`); RSS text is HTML.
    private func textMode() -> TextMode {
        guard atomDocument else { return .html }
        let mode = attribute("mode")
        switch (attribute("type") ?? "text").lowercased() {
        case "html", "text/html": return .html
        case "xhtml", "application/xhtml+xml": return mode == "escaped" ? .html : .xhtml
        default: return mode == "escaped" ? .html : .text
        }
    }

    mutating func assign(_ field: Field, _ text: RawText) {
        func first(_ slot: inout String?) { if slot == nil { slot = text.value } }
        func firstText(_ slot: inout RawText?) { if slot == nil { slot = text } }
        switch field {
        case .feedTitle: if header.title == nil { header.title = text }
        case .feedDcTitle: if header.dcTitle == nil { header.dcTitle = text }
        case .feedLink: if header.link == nil { header.link = resolve(text.value) }
        case .feedLanguage: first(&header.language)
        case .feedTTL: first(&header.ttl)
        case .feedAuthorName: first(&header.authorName)
        case .feedItunesAuthor: first(&header.itunesAuthor)
        default: break
        }
        guard item != nil else { return }
        switch field {
        case .itemTitle: firstText(&item!.title)
        case .itemLink: if item!.link == nil { item!.link = resolve(text.value) }
        case .itemOrigLink: if item!.origLink == nil { item!.origLink = resolve(text.value) }
        case .itemDescription: firstText(&item!.description)
        case .itemSummary: firstText(&item!.summary)
        case .itemContent: firstText(&item!.content)
        case .itemContentEncoded: firstText(&item!.contentEncoded)
        case .itemItunesSummary: firstText(&item!.itunesSummary)
        case .itemMediaDescription: firstText(&item!.mediaDescription)
        case .itemGuid:
            if item!.guid == nil { item!.guid = text.value }
        case .itemPublished: first(&item!.published)
        case .itemUpdated: first(&item!.updated)
        case .itemDcDate: first(&item!.dcDate)
        case .itemAuthor: first(&item!.author)
        case .itemAuthorName: first(&item!.authorName)
        case .itemDcCreator: first(&item!.dcCreator)
        case .itemItunesAuthor: first(&item!.itunesAuthor)
        case .itemItunesDuration: first(&item!.itunesDuration)
        case .itemYtVideoID: first(&item!.ytVideoID)
        default: break
        }
    }
}

/// `rel` is a space-separated list of relation types, compared case-insensitively (RFC 8288 3.3).
enum WebSubRel {
    static func names(_ rel: String, _ type: String) -> Bool {
        rel.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" })
            .contains { $0.lowercased() == type }
    }
}
