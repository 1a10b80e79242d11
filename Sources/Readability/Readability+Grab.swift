import PulseModel

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
            let (content, _) = scoreAndSelect(elementsToScore, page: page)
            guard !arena.meter.exhausted else { return nil }
            prepArticle(content)
            guard !arena.meter.exhausted else { return nil }
            let textLength = content.innerTextLength
            if textLength >= options.charThreshold { return content }

            // Restore the page (Readability.js: page.innerHTML = pageCacheHtml) by rebuilding
            // it from the immutable document: cheaper than copying every page up front
            // when most pages never retry.
            attempts.append((content, textLength))
            guard let fresh = preparedBody() else { return nil }
            page = fresh
            if flags.contains(.stripUnlikelys) {
                flags.remove(.stripUnlikelys)
            } else if flags.contains(.weightClasses) {
                flags.remove(.weightClasses)
            } else if flags.contains(.cleanConditionally) {
                flags.remove(.cleanConditionally)
            } else {
                // Stable sort: the earliest of equally long attempts wins, as in Array.sort.
                let best = attempts.enumerated().max { lhs, rhs in
                    lhs.element.textLength != rhs.element.textLength
                        ? lhs.element.textLength < rhs.element.textLength : lhs.offset > rhs.offset
                }
                guard let best, best.element.textLength > 0 else { return nil }
                return best.element.content
            }
        }
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
                titleStory = nearestAncestor(of: current, tag: "article")
                node = removeAndGetNext(current)
                continue
            }
            if stripUnlikelyCandidates {
                if Regexps.unlikelyCandidates.matches(matchBytes) && !Regexps.okMaybeItsACandidate.matches(matchBytes)
                    && !hasAncestorTag(current, "table") && !hasAncestorTag(current, "code")
                    && current.tag != "body" && current.tag != "a" {
                    node = removeAndGetNext(current)
                    continue
                }
                if let role = current.attribute("role"), Self.unlikelyRoles.contains(role) {
                    node = removeAndGetNext(current)
                    continue
                }
            }
            if Self.emptyRemovable.contains(current) && isElementWithoutContent(current) {
                node = removeAndGetNext(current)
                continue
            }
            if Self.tagsToScore.contains(current) { elementsToScore.append(current) }

            var visited = current
            if current.tag == "div" {
                wrapPhrasingRuns(in: current)
                if hasSingleTagInsideElement(current, "p") && linkDensity(current) < 0.25,
                   let paragraph = current.firstElementChild {
                    current.replace(with: paragraph)
                    visited = paragraph
                    elementsToScore.append(paragraph)
                } else if !hasChildBlockElement(current) {
                    current.tag = "p"
                    elementsToScore.append(current)
                }
            }
            node = nextElementInOrder(visited)
        }
        return elementsToScore
    }

    /// Puts runs of phrasing content directly inside a DIV into P elements.
    func wrapPhrasingRuns(in div: DNode) {
        var paragraph: DNode?
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
                }
            } else if let open = paragraph {
                while let last = open.lastChild, isWhitespace(last) { last.remove() }
                paragraph = nil
            }
            child = nextSibling
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
