import PulseModel
import TextSupport

/// `_grabArticle`: node prepping, then scoring (Readability+Scoring), then cleanup
/// (Readability+Cleaning), retried with relaxed flags while the result is too short.
extension Extractor {
    static let tagsToScore = TagSet(["section", "h2", "h3", "h4", "h5", "h6", "p", "td", "pre"])
    static let unlikelyRoles: Set<String> = ["menu", "menubar", "complementary", "navigation", "alert", "alertdialog", "dialog"]
    static let emptyRemovable = TagSet(["div", "section", "header", "h1", "h2", "h3", "h4", "h5", "h6"])
    static let divToPElements = TagSet(["blockquote", "dl", "div", "img", "ol", "p", "pre", "table", "ul"])

    func grabArticle() -> DNode? {
        guard var page = body else { return nil }

        while true {
            let elementsToScore = prepareNodes()
            guard !arena.meter.exhausted else { return nil }
            let (content, pick) = scoreAndSelect(elementsToScore, page: page)
            guard !arena.meter.exhausted else { return nil }
            prepArticle(content)
            guard !arena.meter.exhausted else { return nil }
            // A site notice is no attempt's text: it never wins over a later attempt's article.
            let measured = content.innerTextLength
            let textLength = options.enhancedCleaning && readsAsNotice(content, length: measured) ? 0 : measured
            if textLength >= options.charThreshold && !pick.astray && !attempts.contains(where: Self.hasStrayed) {
                return content
            }
            if !pick.astray, let named = pick.namedArticle, textLength > (namedArticle?.length ?? -1) {
                namedArticle = (named, textLength)
            }

            // Restore the page (Readability.js: page.innerHTML = pageCacheHtml) by rebuilding
            // it from the immutable document: cheaper than copying every page up front
            // when most pages never retry.
            attempts.append((content, textLength, pick.astray))
            // Long enough, but astray or after an astray attempt: a stricter attempt may still win.
            if textLength >= options.charThreshold { return bestAttempt() }
            guard let fresh = preparedBody() else { return nil }
            page = fresh
            if flags.contains(.stripUnlikelys) {
                flags.remove(.stripUnlikelys)
            } else if flags.contains(.weightClasses) {
                flags.remove(.weightClasses)
            } else if flags.contains(.cleanConditionally) {
                flags.remove(.cleanConditionally)
            } else {
                return bestAttempt()
            }
        }
    }

    /// What the retries end with. Readability.js takes the longest attempt (the earliest of
    /// equally long ones: its sort is stable). Here the first astray attempt (`isAstrayRetry`)
    /// with a paragraph's worth of text ends the choice: the longest attempt before it wins when
    /// one had a paragraph's worth too, else the astray one does. Later, laxer attempts only
    /// strayed further.
    func bestAttempt() -> DNode? {
        var pool = attempts[...]
        if let astray = attempts.firstIndex(where: Self.hasStrayed) {
            guard attempts[..<astray].contains(where: Self.hasText) else {
                return attempts[astray].content
            }
            pool = attempts[..<astray]
        }
        let best = pool.enumerated().max { lhs, rhs in
            lhs.element.textLength != rhs.element.textLength
                ? lhs.element.textLength < rhs.element.textLength : lhs.offset > rhs.offset
        }
        guard let best, best.element.textLength > 0 else { return nil }
        return best.element.content
    }

    static func hasStrayed(_ attempt: Attempt) -> Bool {
        attempt.astray && attempt.textLength >= paragraphLength
    }

    static func hasText(_ attempt: Attempt) -> Bool {
        attempt.textLength >= paragraphLength
    }

    /// A paragraph's worth of text: Readability.js joins a sibling paragraph this long.
    static let paragraphLength = 80

    /// Whether a retry's pick lies where the strict attempts did not look. The retries exist for
    /// pages whose article the unlikely-candidate and class-weight rules hid; on a page with a
    /// short article they found the longest text around it instead (a comment thread, a sidebar
    /// "About me", a footer), which outscored the article once those rules were off. Astray:
    /// - a pick whose text starts with a reader thread's title ("92 Responses to ...");
    /// - without the unlikely-candidate rule, a pick that is or sits in a block that rule removes;
    /// - without class weights, a pick whose own class or id weighs against it, or one outside
    ///   the block an attempt with class weights picked when that block's own class or id named
    ///   it the article ("entry-content", "post-body") and it held a paragraph's worth of text.
    func isAstrayRetry(_ topCandidate: DNode) -> Bool {
        guard flags != [.stripUnlikelys, .weightClasses, .cleanConditionally] else { return false }
        // A pick whose text starts with a thread's title ("92 Responses to ...") is the thread.
        if startsWithThread(topCandidate) { return true }
        if !flags.contains(.stripUnlikelys) {
            var node: DNode? = topCandidate
            while let current = node, current.isElement, current.tag != "body" {
                if isUnlikelyCandidate(current) { return true }
                node = current.parent
            }
        }
        guard !flags.contains(.weightClasses) else { return false }
        if ownClassWeight(topCandidate) < 0 { return true }
        guard let named = namedArticle, named.length >= Self.paragraphLength else { return false }
        var node: DNode? = topCandidate
        while let current = node, current.isElement {
            if current.sourceIndex == named.element { return false }
            node = current.parent
        }
        return true
    }

    /// Whether the first text inside `node` is a thread's title or follows one
    /// (`markThreadAfterTitle`).
    func startsWithThread(_ node: DNode) -> Bool {
        var starts = false
        node.forEachDescendant { child in
            guard child.kind == .text, !child.hasNoText else { return true }
            starts = child.followsThreadTitle
            return false
        }
        return starts
    }

    /// The unlikely-candidate test of `_grabArticle`'s first pass: class and id, then the role;
    /// never a block that is or holds the page's marked main content (`holdsMainContent`).
    func isUnlikelyCandidate(_ node: DNode) -> Bool {
        let matchBytes = node.matchBytes
        var unlikely = false
        if Regexps.unlikelyCandidates.matches(matchBytes) && !Regexps.okMaybeItsACandidate.matches(matchBytes)
            && !hasAncestorTag(node, "table") && !hasAncestorTag(node, "code")
            && node.tag != "body" && node.tag != "a" {
            unlikely = true
        } else if let role = node.attribute("role"), Self.unlikelyRoles.contains(role) {
            unlikely = true
        }
        return unlikely && !(options.enhancedCleaning && holdsMainContent(node))
    }

    /// The first loop of `_grabArticle`: drops hidden, unlikely and empty nodes, turns
    /// paragraph-like DIVs into Ps, and collects the elements to score.
    func prepareNodes() -> [DNode] {
        var elementsToScore: [DNode] = []
        var shouldRemoveTitleHeader = true
        titleStory = nil
        let stripUnlikelyCandidates = flags.contains(.stripUnlikelys)
        var node = documentElement

        while let current = node, !arena.meter.exhausted {
            let matchBytes = current.matchBytes
            if !isProbablyVisible(current) {
                node = removeAndGetNext(current)
                continue
            }
            if current.attribute("aria-modal") == "true" && current.attribute("role") == "dialog" {
                node = removeAndGetNext(current)
                continue
            }
            if checkByline(current, matchBytes) {
                node = removeAndGetNext(current)
                continue
            }
            if shouldRemoveTitleHeader && headerDuplicatesTitle(current) {
                shouldRemoveTitleHeader = false
                titleStory = current.ancestor { $0.tag == "article" }
                node = removeAndGetNext(current)
                continue
            }
            if stripUnlikelyCandidates && isUnlikelyCandidate(current) {
                node = removeAndGetNext(current)
                continue
            }
            if Self.emptyRemovable.contains(current) && isElementWithoutContent(current) {
                node = removeAndGetNext(current)
                continue
            }
            if Self.tagsToScore.contains(current) { elementsToScore.append(current) }

            var visited = current
            if current.tag == "div" {
                let wrapped = wrapPhrasingRuns(in: current)
                if hasSingleTagInsideElement(current, "p") && linkDensity(current) < 0.25,
                   let paragraph = current.firstElementChild {
                    current.replace(with: paragraph)
                    visited = paragraph
                    elementsToScore.append(paragraph)
                } else if !hasChildBlockElement(current) {
                    current.tag = "p"
                    elementsToScore.append(current)
                } else if let wrapped, current.elementChildCount == 1, isLinkedSentence(wrapped) {
                    current.wasParagraph = true
                }
            }
            node = nextElementInOrder(visited)
        }
        return elementsToScore
    }

    /// Puts runs of phrasing content directly inside a DIV into P elements; returns the
    /// paragraph when it made exactly one.
    @discardableResult
    func wrapPhrasingRuns(in div: DNode) -> DNode? {
        var paragraph: DNode?
        var made: DNode?
        var count = 0
        var child = div.firstChild
        while let current = child {
            let nextSibling = current.next
            if isPhrasingContent(current) {
                if let paragraph {
                    paragraph.appendChild(current)
                } else if !isWhitespace(current) {
                    let created = arena.element("p")
                    current.replace(with: created)
                    created.appendChild(current)
                    paragraph = created
                    made = created
                    count += 1
                }
            } else if let open = paragraph {
                while let last = open.lastChild, isWhitespace(last) { last.remove() }
                paragraph = nil
            }
            child = nextSibling
        }
        return count == 1 ? made : nil
    }

    /// Whether a paragraph written as a DIV (one run of phrasing content, which `wrapPhrasingRuns`
    /// put in a P of its own) reads as a sentence that cites its sources: it ends as a sentence
    /// ends and has a sentence's worth of letters outside its links ("<a>According to BuzzFeed</a>,
    /// it originated with this tweet from <a>the Action Fund</a>:"). Readability.js unwraps such a
    /// DIV only under a link density of 0.25; above it the DIV stays a container, and
    /// `_cleanConditionally` removed it as a link box, while the same text in a <p> is kept. A
    /// menu ("Home | About") or a list of titles ("* Part one * Part two...") has its letters in
    /// the links.
    func isLinkedSentence(_ paragraph: DNode) -> Bool {
        guard !hasChildBlockElement(paragraph) else { return false }
        let text = paragraph.innerText
        guard let last = text.unicodeScalars.last(where: { !Self.closingQuotes.contains($0) }),
              Self.sentenceEnds.contains(last) else { return false }
        let linked = paragraph.elements("a").reduce(0) { $0 + Self.letterCount($1.textContent) }
        return Self.letterCount(paragraph.textContent) - linked >= Self.sentenceLetters
    }

    static let sentenceEnds: Set<Unicode.Scalar> = [".", "!", "?", ":"]
    static let closingQuotes: Set<Unicode.Scalar> = ["\"", "'", ")", "\u{201D}", "\u{2019}", "\u{00BB}"]
    /// Letters outside the links for a clause of prose: about five words.
    static let sentenceLetters = 25

    /// ASCII letters, and each non-ASCII character (its UTF-8 lead byte) as one.
    static func letterCount(_ text: String) -> Int {
        TextScan.withBytes(text) { bytes in
            bytes.reduce(0) { count, byte in count + ((byte | 0x20) &- 0x61 < 26 || byte >= 0xC0 ? 1 : 0) }
        }
    }

    /// `_getNextNode`: depth-first over elements only.
    func nextElementInOrder(_ node: DNode, skipChildren: Bool = false) -> DNode? {
        if !skipChildren, let child = node.firstElementChild { return child }
        if let sibling = node.nextElementSibling { return sibling }
        // Up through the unretained links (the arena keeps every node alive): a strong reference
        // per ancestor was a retain and a release each.
        var cursor = node.parentLink
        while let ancestor = cursor {
            let (next, parent) = ancestor._withUnsafeGuaranteedRef { ($0.nextLink, $0.parentLink) }
            if let sibling = DNode.elementLink(from: next, forward: true) { return sibling.takeUnretainedValue() }
            cursor = parent
        }
        return nil
    }

    func removeAndGetNext(_ node: DNode) -> DNode? {
        let next = nextElementInOrder(node, skipChildren: true)
        node.remove()
        return next
    }

    func isProbablyVisible(_ node: DNode) -> Bool {
        if let style = node.attribute("style") {
            let compact = style.lowercased().filter { !$0.isWhitespace }
            if TextScan.contains(compact, "display:none") || TextScan.contains(compact, "visibility:hidden") { return false }
        }
        if node.hasAttribute("hidden") { return false }
        if node.attribute("aria-hidden") == "true" && !TextScan.contains(node.className, "fallback-image") { return false }
        return true
    }

    func hasAncestorTag(_ start: DNode, _ tag: String, maxDepth: Int = 3, filter: ((DNode) -> Bool)? = nil) -> Bool {
        var node = start
        var depth = 0
        while let parent = node.parent {
            if maxDepth > 0 && depth > maxDepth { return false }
            if parent.tag == tag && (filter?(parent) ?? true) { return true }
            node = parent
            depth += 1
        }
        return false
    }

    func hasSingleTagInsideElement(_ element: DNode, _ tag: String) -> Bool {
        guard element.elementChildCount == 1, element.firstElementChild?.tag == tag else { return false }
        // `hasContent: /\S$/` — a text child whose last character is not whitespace.
        return !element.childNodes.contains { child in
            child.kind == .text && !(child.text.unicodeScalars.last?.isJSWhitespace ?? true)
        }
    }

    func isElementWithoutContent(_ node: DNode) -> Bool {
        guard node.isElement, node.hasNoText else { return false }
        let childCount = node.elementChildCount
        return childCount == 0 || childCount == node.countElements("br") + node.countElements("hr")
    }

    func hasChildBlockElement(_ element: DNode) -> Bool {
        element.hasDescendant { $0.isElement && Self.divToPElements.contains($0) }
    }
}
