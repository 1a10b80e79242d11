import OpenGraph
import PulseModel
import TextSupport

/// Steps added beyond Readability.js, measured on the fixtures: page furniture that
/// Readability's class-name heuristics miss when it sits inside the article container
/// (newsletter boxes, share bars, author bios, "read more" lists, cookie notices) and
/// one-line calls to action between paragraphs.
extension Extractor {
    static let boilerplateWords = Regexps.Keywords(withUnderscores([
        "newsletter", "subscribe", "subscription", "signup", "sign-up", "cookie", "consent", "paywall",
        "promo", "related", "recommend", "more-stories", "read-more", "readmore", "further-reading",
        "share", "sharing", "social", "follow-us", "author-bio", "author-info", "about-author", "bio-box",
        "authorbio", "post-author", "postauthor", "author-box", "authorbox", "breadcrumb", "tag-list", "taglist", "article-tags", "topics", "comment", "disqus",
        "advert", "ad-slot", "ad-container", "adslot", "sponsored", "outbrain", "taboola", "trending",
        "popular", "most-read", "mostread", "toolbar", "skip-link", "sr-only", "visually-hidden",
        "screen-reader", "modal", "overlay", "masthead", "jump-link", "site-nav", "site-header",
        "site-footer", "donate", "app-promo", "podcast-promo", "live-updates-nav", "pagination",
        "pullquote", "pull-quote", "stock-ticker", "ticker-widget", "quote-widget", "stock-quote", "gallery-counter",
    ]))
    static let articleBodyWords = Regexps.Keywords(withUnderscores([
        "article-body", "articlebody", "story-body", "storybody", "post-content", "entry-content",
        "article-content", "main-content", "post-body", "article__body", "story-content", "article-text",
    ]))

    /// The words, and each hyphenated one spelt with an underscore too ("author_info" is
    /// "author-info"): in the list, so the class names are read as they are, one pass each.
    static func withUnderscores(_ words: [String]) -> [String] {
        words + words.filter { $0.contains("-") }.map { String($0.map { $0 == "-" ? "_" : $0 }) }
    }
    static let alwaysRemovedTags = TagSet(["nav", "aside", "form", "button", "dialog", "menu", "select", "textarea"])
    static let furnitureRoles: Set<String> = ["navigation", "banner", "contentinfo", "complementary", "search", "dialog", "alertdialog", "menu", "menubar"]

    func removeBoilerplateBeforeGrab(_ body: DNode) {
        let page = PageText(of: body, extractor: self)
        // Reply controls and thread titles, before any block goes: a title's own wrapper may be
        // furniture ("commentform").
        markReplyControls(in: body)
        var node = body.firstElementChild
        while let current = node {
            let comments = threadComments(current)
            if !comments.isEmpty {
                node = removeThread(current, comments: comments)
            } else if let rail = teaserRail(current) {
                if rail.isWhole {
                    // The rail's own title ("Related", "More stories") goes with it.
                    removeShortHeading(before: current)
                    node = removeAndGetNext(current)
                } else {
                    for teaser in rail.teasers { teaser.remove() }
                    node = nextElementInOrder(current)
                }
            } else if isFurniture(current, page: page) {
                node = removeAndGetNext(current)
            } else {
                node = nextElementInOrder(current)
            }
        }
    }

    /// How much of the page's text a block holds, for the guards that never drop most of it.
    /// Counted in paragraphs (`<p>` text), as navigation and widgets hold little of it; on a page
    /// with under a short article's worth of paragraph text (a table layout, text in `<div>`s
    /// and `<td>`s, often inside an ASP.NET page's one `<form>`) in all the text instead: there
    /// every block held 0 of the page's 0 paragraph characters, and the form wrapping the whole
    /// page went as furniture, leaving nothing.
    struct PageText {
        let countsParagraphs: Bool
        let total: Int

        init(of body: DNode, extractor: Extractor) {
            let paragraphs = extractor.paragraphTextLength(body)
            countsParagraphs = paragraphs >= extractor.options.charThreshold
            total = max(countsParagraphs ? paragraphs : body.innerTextLength, 1)
        }

        /// Whether `node` holds less than `1 / divisor` of the page's text.
        func holdsLittle(_ node: DNode, extractor: Extractor, divisor: Int) -> Bool {
            (countsParagraphs ? extractor.paragraphTextLength(node) : node.innerTextLength) * divisor < total
        }
    }

    /// The title of a rail or thread that is removed ("Related", "15 replies"): the heading right
    /// before it, when shorter than `railTitleMaximumLength`.
    func removeShortHeading(before node: DNode) {
        if let title = node.previousElementSibling, Self.headingTags.contains(title),
           title.innerTextLength < Self.railTitleMaximumLength {
            title.remove()
        }
    }

    private func isFurniture(_ node: DNode, page: PageText) -> Bool {
        if Self.alwaysRemovedTags.contains(node) { return page.holdsLittle(node, extractor: self, divisor: 3) }
        if let role = node.attribute("role"), Self.furnitureRoles.contains(role) {
            return page.holdsLittle(node, extractor: self, divisor: 3)
        }
        let matchBytes = node.matchBytes
        guard Self.boilerplateWords.matches(matchBytes), !Self.articleBodyWords.matches(matchBytes) else { return false }
        // Never drop a container holding a large share of the page's text, nor the page's marked
        // main content (a newspaper's "commentary" section above a longer reader thread).
        return page.holdsLittle(node, extractor: self, divisor: 4) && !holdsMainContent(node)
    }

    /// Teasers for other pages of this site, one per item: "More stories", "Most read" and
    /// section rails, whatever their class names. Checked before the share guards of
    /// `isFurniture`: a rail of twenty teasers can hold more paragraph text than a short article,
    /// and then outscored it or was joined to it as a sibling. An item is a teaser when it is
    /// short and holds a headline link to this site (`teaserKind`). Links to other sites (a
    /// reading list of sources) and image-only links (a gallery's thumbnails) never make a
    /// teaser. Measured on the weighted fixture pages (page-weight.py): without this rule a
    /// 20-teaser rail was extracted instead of, or beside, six of the sixteen articles.
    ///
    /// The teasers among a container's element children when they make it a rail: at least four,
    /// and at least 80% of the items with text (`isWhole`: the rail goes whole, with its title).
    /// A container at least half of whose items are teasers (a sidebar holding two rails, an ad
    /// and a poll) loses the teasers only. Items without text (dividers, spacers, empty ad
    /// slots) are not counted.
    func teaserRail(_ node: DNode) -> (teasers: [DNode], isWhole: Bool)? {
        guard Self.teaserListTags.contains(node), node.elementChildCount >= Self.teaserListMinimumItems else { return nil }
        var items = 0
        var teasers = 0
        var child = node.firstElementChild
        while let item = child {
            switch teaserKind(item) {
            case .teaser: teasers += 1; items += 1
            case .other: items += 1
            case .blank: break
            }
            child = item.nextElementSibling
        }
        guard teasers >= Self.teaserListMinimumItems, teasers * 2 >= items else { return nil }
        if teasers * 5 >= items * 4 { return ([], true) }
        // Collected only for a rail that is part of its container (rare): each item is asked again.
        var found: [DNode] = []
        child = node.firstElementChild
        while let item = child {
            if teaserKind(item) == .teaser { found.append(item) }
            child = item.nextElementSibling
        }
        return (found, false)
    }

    /// What a thread's title is set in: a heading, or a block or bold run of its own
    /// (`<div class="header">92 Responses to ...</div>`).
    static let threadTitleTags = TagSet(["h1", "h2", "h3", "h4", "h5", "h6", "div", "p", "span", "strong", "b", "dt"])
    static let teaserListTags = TagSet(["ul", "ol", "div", "section"])
    /// A heading right before a rail or a thread is its title when it is this short.
    static let railTitleMaximumLength = 80
    static let teaserListMinimumItems = 4
    /// Longer items are stories in their own right (a roundup's entries), not teasers.
    static let teaserMaximumLength = 300
    static let teaserHeadlineMinimumLength = 20

    enum TeaserKind { case teaser, other, blank }

    /// A short item whose link into the site is its headline: the link holds a heading or sits in
    /// one, it is most of the item's text ("1 Headline of another story"), or it stands on a line
    /// of its own above a summary and a date; or whose link into the site says "Read more" after
    /// the summary. A link inside a sentence ("2019: the council <a>approved the first phase</a>
    /// of the works") is not a headline: timelines and "what we know" lists linking earlier
    /// coverage are the article's. `.blank`: an item with no text and no link.

    private func teaserKind(_ item: DNode) -> TeaserKind {
        // A card is a few dozen nodes. Stopping there bounds the rule at that many visits per
        // element of the page (each element is one container's child), whatever the nesting.
        // One walk counts the nodes, keeps the links into the site and notes any text; the links
        // are judged after it, when the item's length is known to matter.
        var nodes = 0
        var links: [DNode] = []
        var hasText = false
        item.forEachDescendant { node in
            nodes += 1
            if node.tag == "a", node.isElement, node.hasAttribute("href"), isSiteLink(node.attribute("href")) {
                links.append(node)
            } else if !hasText, node.kind == .text, !node.hasNoText {
                hasText = true
            }
            return nodes <= Self.teaserMaximumNodes
        }
        teaserNodesVisited += nodes
        guard nodes <= Self.teaserMaximumNodes else { return .other }
        // A divider, spacer or empty ad slot between the cards.
        guard hasText || !links.isEmpty else { return .blank }
        guard !links.isEmpty else { return .other }
        let itemLength = item.innerTextLength
        if itemLength >= Self.teaserMaximumLength {
            // A summary a story's length is still a teaser when its link says the story is on
            // another page ("... Read more").
            guard itemLength < Self.teaserMaximumLength * 2 else { return .other }
            return links.contains { Self.isMoreLink($0.innerText) } ? .teaser : .other
        }
        let isTeaser = links.contains { link in
            let linkLength = link.innerTextLength
            if link.hasDescendant(where: { Self.headingTags.contains($0) }) || link.ancestor(within: item, where: Self.headingTags.contains) != nil { return true }
            if Self.isMoreLink(link.innerText) { return true }
            guard linkLength >= Self.teaserHeadlineMinimumLength else { return false }
            return Double(linkLength) >= Double(itemLength) * Self.headlineLinkShare
                || !isInsideSentence(link)
        }
        return isTeaser ? .teaser : .other
    }

    static let teaserMaximumNodes = 100

    /// "Read more...", "Continue reading »", "Leer más": a teaser's link to the story it sums up.
    static func isMoreLink(_ text: String) -> Bool {
        // The longest phrase is 21 letters; headlines are longer and never asked further.
        guard text.utf8.count <= 40 else { return false }
        return moreLinkTexts.contains(letterWords(text))
    }

    /// `text.lowercased().split { !$0.isLetter }.joined(separator: " ")`: the words of letters,
    /// lower-cased, one space between them. ASCII text (nearly every link) is read on its bytes:
    /// Character properties cost more than the rest of the teaser rule.
    static func letterWords(_ text: String) -> String {
        let ascii = TextScan.withBytes(text) { bytes -> String? in
            guard !bytes.contains(where: { $0 >= 0x80 }) else { return nil }
            var words: [UInt8] = []
            var gap = false
            for byte in bytes {
                let lowered = TextScan.lowercasedASCII(byte)
                guard lowered &- 0x61 < 26 else { gap = true; continue }
                if gap && !words.isEmpty { words.append(0x20) }
                gap = false
                words.append(lowered)
            }
            return String(decoding: words, as: UTF8.self)
        }
        return ascii ?? text.lowercased().split { !$0.isLetter }.joined(separator: " ")
    }

    static let moreLinkTexts: Set<String> = [
        "read more", "more", "continue reading", "read the rest", "full story", "read full story", "read the full story",
        "read full article", "read the full article", "leer más", "leer mas", "seguir leyendo", "ver más", "ler mais",
        "continue lendo", "leia mais", "saiba mais", "weiterlesen", "mehr", "lire la suite", "en savoir plus",
        "leggi tutto", "continua a leggere", "lees meer", "verder lezen",
    ]

    /// A plain link is the item's headline when its text is at least this share of the item's.
    static let headlineLinkShare = 0.6

    func paragraphTextLength(_ node: DNode) -> Int {
        if node.tag == "p" { return node.innerTextLength }
        return node.elements("p").reduce(0) { $0 + $1.innerTextLength }
    }

    static let callToActionPrefixes = [
        "read more", "read also", "also read", "related:", "related articles", "related stories", "related coverage",
        "see also", "more:", "sign up", "subscribe", "advertisement", "follow us", "share this", "click here",
        "copyright", "©", "all rights reserved", "recommended", "more from", "watch:", "listen:", "listen to this",
        "download the", "get the latest", "join our", "don't miss", "don’t miss", "trending", "most read",
        "you may also like", "you might also like", "continue reading", "sponsored", "loading", "share on",
        "share via", "tweet this", "email this", "print this", "skip to", "advertising", "support our journalism",
        "already a subscriber", "create an account", "log in", "sign in", "up next", "next story", "next article",
        "read next",
        // The same cross-references in the sources' other languages ("Lea también: <headline>").
        "lea también", "lee también", "lea más:", "lea:", "mire:", "mira:", "puedes ver:", "ver también", "te puede interesar",
        "leia também", "leia mais:", "veja também", "lire aussi", "à lire aussi", "a lire aussi", "voir aussi",
        "lesen sie auch", "lesen sie mehr", "auch interessant", "mehr zum thema", "schon gelesen", "das könnte sie auch interessieren",
        "czytaj też", "czytaj także", "czytaj również", "zobacz też", "zobacz także", "leggi anche", "potrebbe interessarti",
        "lees ook", "lees meer",
        // Rail and widget titles left standing when their links went.
        "weitere beiträge", "neueste artikel", "empfohlene beiträge", "das könnte dich auch interessieren",
        "vorschau auf den nächsten artikel", "dowiedz się więcej", "externer inhalt", "anzeige:", "kommentarfeed",
    ]
    static let callToActionLines = LiteralPrefixes(callToActionPrefixes)
    static let trailingBlockTags = TagSet(["p", "li", "div", "h2", "h3", "h4", "h5", "h6", "figure", "ul", "ol"])
    static let linkColumnTags = TagSet(["ul", "ol", "div", "td", "section", "table"])

    func removeBoilerplateAfterGrab(_ content: DNode) {
        removeOtherStories(content)
        removeMarkedThreads(content)
        for block in content.elements(Self.trailingBlockTags).reversed()
        where block.parent != nil {
            let length = block.innerTextLength
            guard length > 0, length < 200 else { continue }
            let text = block.textPrefix(40).lowercased()
            if Self.callToActionLines.matchStart(of: text) {
                block.remove()
                continue
            }
            // A short line that is mostly one link to this site is a teaser for another page.
            if (block.tag == "p" || block.tag == "li"), length < 120, siteLinkDensity(block) > 0.8 {
                block.remove()
            }
        }
        // Containers dense with links to this site (more-stories lists, in-page "key events"
        // menus, link columns); in-page links count fully here, unlike Readability's 0.3 for `#`.
        for block in content.elements(Self.linkColumnTags).reversed() where block.parent != nil {
            let length = block.innerTextLength
            if block.tag == "ul" || block.tag == "ol" ? siteLinkDensity(block) > 0.6 : (length < 300 && siteLinkDensity(block) > 0.6) {
                block.remove()
            }
        }
        // Timestamps standing alone between live-blog entries.
        for time in content.elements("time").reversed() where time.parent != nil && time.parent?.tag != "p" {
            time.remove()
        }
        removePageFurniture(content)
        removeTrailingNotice(content)
        removeTrailingLabel(content)
        removeTitleRepeat(content)
    }

    /// Share of the text inside links that stay on this site: relative, in-page and same-host
    /// links. Related-story lists and section menus link to the site itself; a list of links to
    /// other sites (sources, bug reports, documents) is usually the article's own content.
    func siteLinkDensity(_ element: DNode) -> Double {
        let length = element.innerTextLength
        guard length > 0 else { return 0 }
        let linked = element.elements("a").reduce(0) { sum, link in
            isSiteLink(link.attribute("href")) ? sum + link.innerTextLength : sum
        }
        return Double(linked) / Double(length)
    }

    func isSiteLink(_ href: String?) -> Bool {
        guard let href = href?.trimmingASCIIWhitespace() else { return true }
        // A javascript: "link" goes nowhere; its text is the page's own (glossary pop-ups).
        if Self.startsWithJavaScriptScheme(href) { return false }
        guard !href.isEmpty, let siteHost else { return true }
        // "/path", "#id" and "?q" have no authority (RFC 3986 Appendix B): the common relative
        // links are answered without splitting them.
        if let first = href.utf8.first, first == 0x23 || first == 0x3F || (first == 0x2F && !href.hasPrefix("//")) {
            return true
        }
        let parts = URLResolver.split(href)
        guard let authority = parts.authority else { return true }   // relative, in-page, mailto:
        return Self.sameSite(Self.comparableHost(authority), siteHost)
    }

    /// `text.lowercased().hasPrefix("javascript:")`, on the first bytes for ASCII text (the
    /// lower-casing and the Character comparison cost ~2k instructions a link); any non-ASCII byte
    /// among or right after them (which may lower-case to ASCII or join the colon) asks the
    /// original question.
    static func startsWithJavaScriptScheme(_ text: String) -> Bool {
        var bytes = text.utf8.makeIterator()
        for wanted in javaScriptScheme {
            guard let byte = bytes.next() else { return false }
            if byte >= 0x80 { return text.lowercased().hasPrefix("javascript:") }
            guard byte == wanted || (byte &- 0x41 < 26 && byte | 0x20 == wanted) else { return false }
        }
        if let next = bytes.next(), next >= 0x80 { return text.lowercased().hasPrefix("javascript:") }
        return true
    }

    private static let javaScriptScheme = Array("javascript:".utf8)

    /// Same host, or the same host under another public suffix: a page whose canonical link says
    /// news.example.de while all its own links go to news.example.com (no `--url` given) must still
    /// see those links as the site's. Subdomains stay distinct, as before. Two-level country
    /// suffixes (co.uk, com.br) are recognised by their usual second labels.
    static func sameSite(_ host: String, _ siteHost: String) -> Bool {
        if host == siteHost { return true }
        guard let name = withoutSuffix(host), let siteName = withoutSuffix(siteHost) else { return false }
        return name == siteName
    }

    static let secondLevelLabels: Set<String> = ["co", "com", "org", "net", "gov", "ac", "edu", "ne", "or", "go", "gob", "nic"]

    /// The host without its public suffix ("www.bbc.co.uk" -> "www.bbc"); nil for IP literals and
    /// names too short to tell publishers apart.
    static func withoutSuffix(_ host: String) -> String? {
        var labels = host.split(separator: ".")
        guard labels.count >= 2, !host.hasPrefix("["), !host.allSatisfy({ $0.isNumber || $0 == "." }) else { return nil }
        let last = labels.removeLast()
        if labels.count >= 2, last.count == 2, let second = labels.last, secondLevelLabels.contains(String(second)) {
            labels.removeLast()
        }
        let name = labels.joined(separator: ".")
        return (labels.last?.count ?? 0) >= 3 ? name : nil
    }

    /// Lower-cased host without userinfo, port and a leading "www.".
    static func comparableHost(_ authority: String) -> String {
        var host = Substring(authority.lowercased())
        if let at = host.lastIndex(of: "@") { host = host[host.index(after: at)...] }
        if !host.hasPrefix("["), let colon = host.lastIndex(of: ":") { host = host[..<colon] }
        if host.hasPrefix("www.") { host = host.dropFirst(4) }
        return String(host)
    }

    /// The headline repeated as bold text at the top of the body (Readability only drops
    /// an h1/h2 copy).
    private func removeTitleRepeat(_ content: DNode) {
        guard !articleTitle.isEmpty else { return }
        let titleLength = articleTitle.utf16.count
        var node = nextElementInOrder(content)
        var inspected = 0
        while let current = node, inspected < 12 {
            inspected += 1
            let length = current.innerTextLength
            // A bold name inside a sentence ("In an interview with <b>Martha Stewart</b>, ...")
            // is a word of the text, however like the title it reads.
            if length > 0, length <= titleLength + 20, !isInsideSentence(current),
               TextSimilarity.similarity(articleTitle, current.innerText) > 0.75,
               TextSimilarity.similarity(current.innerText, articleTitle) > 0.75 {
                current.remove()
                return
            }
            if length > titleLength * 4 && current.firstElementChild == nil { return }
            node = nextElementInOrder(current)
        }
    }
}
