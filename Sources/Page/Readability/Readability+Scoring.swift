/// Scoring and top-candidate selection from `_grabArticle`, with Readability.js's constants.
extension Extractor {
    func initializeNode(_ node: DNode) {
        var score = 0.0
        switch node.tag {
        case "div": score += 5
        case "pre", "td", "blockquote": score += 3
        case "address", "ol", "ul", "dl", "dd", "dt", "li", "form": score -= 3
        case "h1", "h2", "h3", "h4", "h5", "h6", "th": score -= 5
        default: break
        }
        node.score = score + Double(classWeight(node))
    }

    /// What an attempt's top candidate says of the page: whether it is astray (`isAstrayRetry`),
    /// and the candidate's element when its own class or id names it the article (a positive
    /// class weight, with class weights on).
    struct Pick {
        var astray: Bool
        var namedArticle: Int32?
    }

    /// `_getClassWeight`: ±25 for the class and ±25 for the id.
    func classWeight(_ node: DNode) -> Int {
        flags.contains(.weightClasses) ? ownClassWeight(node) : 0
    }

    /// `classWeight` whatever the flags.
    func ownClassWeight(_ node: DNode) -> Int {
        var weight = 0
        for value in [DNode.withoutTaxonomy(node.className), node.id] where !value.isEmpty {
            let lowered = Array(value.lowercased().utf8)
            if Regexps.isNegative(lowered) { weight -= 25 }
            if Regexps.positive.matches(lowered) { weight += 25 }
        }
        return weight
    }

    /// `_getLinkDensity`: link text over all text; in-page `#...` links count 0.3.
    func linkDensity(_ element: DNode) -> Double {
        let textLength = element.innerTextLength
        guard textLength > 0 else { return 0 }
        var linkLength = 0.0
        for link in element.elements("a") {
            let href = link.attribute("href")
            // Not in Readability.js: a javascript: link leads nowhere, so its text counts as text
            // (some sites wrap whole paragraphs in them for glossary pop-ups).
            if href.map(Self.startsWithJavaScriptScheme) == true { continue }
            let coefficient = (href.map { $0.count > 1 && $0.hasPrefix("#") } ?? false) ? 0.3 : 1
            linkLength += Double(link.innerTextLength) * coefficient
        }
        return linkLength / Double(textLength)
    }

    func ancestors(of node: DNode) -> [DNode] {
        var result: [DNode] = []
        var current = node
        while let parent = current.parent {
            result.append(parent)
            current = parent
        }
        return result
    }

    /// Scores paragraphs into their ancestors, picks the top candidate and merges siblings.
    func scoreAndSelect(_ elementsToScore: [DNode], page: DNode) -> (content: DNode, pick: Pick) {
        var candidates: [DNode] = []
        for element in elementsToScore where !arena.meter.exhausted {
            guard let parent = element.parent, parent.isElement else { continue }
            let meter = TextMeter.measure(element)
            if meter.length < 25 { continue }
            let contentScore = 1.0 + Double(meter.commas + 1) + Double(min(meter.length / 100, 3))
            // The five nearest ancestors (Readability.js's `_getNodeAncestors(node, 5)`), walked in
            // place: building that array for every scored paragraph was an allocation each.
            var next = element.parent
            for level in 0..<5 {
                guard let ancestor = next else { break }
                next = ancestor.parent
                guard ancestor.isElement, let above = ancestor.parent, above.isElement else { continue }
                if ancestor.score == nil {
                    initializeNode(ancestor)
                    candidates.append(ancestor)
                }
                let divider = level == 0 ? 1.0 : level == 1 ? 2.0 : Double(level * 3)
                ancestor.score! += contentScore / divider
            }
        }

        var topCandidates: [DNode] = []
        for candidate in candidates where !arena.meter.exhausted {
            let score = (candidate.score ?? 0) * (1 - linkDensity(candidate))
            candidate.score = score
            for slot in 0..<options.nbTopCandidates {
                if slot >= topCandidates.count || score > (topCandidates[slot].score ?? 0) {
                    topCandidates.insert(candidate, at: slot)
                    if topCandidates.count > options.nbTopCandidates { topCandidates.removeLast() }
                    break
                }
            }
        }

        var topCandidate: DNode
        if let best = topCandidates.first, best.tag != "body" {
            topCandidate = refineTopCandidate(best, topCandidates)
        } else {
            topCandidate = arena.element("div")
            while let child = page.firstChild { topCandidate.appendChild(child) }
            page.appendChild(topCandidate)
            initializeNode(topCandidate)
        }
        // Judged before the merge moves the candidate out of its ancestors.
        let pick = Pick(astray: isAstrayRetry(topCandidate),
                        namedArticle: classWeight(topCandidate) > 0 ? topCandidate.sourceIndex : nil)
        return (mergeSiblings(of: topCandidate), pick)
    }

    /// The alternative-candidate ancestor search, the climb while parents score higher, and
    /// the climb through only-child parents.
    private func refineTopCandidate(_ best: DNode, _ topCandidates: [DNode]) -> DNode {
        var topCandidate = best
        let bestScore = best.score ?? 0
        var alternativeAncestors: [[DNode]] = []
        for other in topCandidates.dropFirst() where (other.score ?? 0) / bestScore >= 0.75 {
            alternativeAncestors.append(ancestors(of: other))
        }
        let minimumTopCandidates = 3
        if alternativeAncestors.count >= minimumTopCandidates {
            var parent = topCandidate.parent
            while let current = parent, current.tag != "body", current.kind == .element {
                var containing = 0
                for list in alternativeAncestors where containing < minimumTopCandidates {
                    if list.contains(where: { $0 === current }) { containing += 1 }
                }
                if containing >= minimumTopCandidates {
                    topCandidate = current
                    break
                }
                parent = current.parent
            }
        }
        if topCandidate.score == nil { initializeNode(topCandidate) }

        var parent = topCandidate.parent
        var lastScore = topCandidate.score ?? 0
        let scoreThreshold = lastScore / 3
        while let current = parent, current.tag != "body", current.kind == .element {
            guard let parentScore = current.score else {
                parent = current.parent
                continue
            }
            if parentScore < scoreThreshold { break }
            if parentScore > lastScore {
                topCandidate = current
                break
            }
            lastScore = parentScore
            parent = current.parent
        }

        parent = topCandidate.parent
        while let current = parent, current.tag != "body", current.kind == .element, current.elementChildCount == 1 {
            topCandidate = current
            parent = current.parent
        }
        if topCandidate.score == nil { initializeNode(topCandidate) }
        return topCandidate
    }

    static let alterToDivExceptions = TagSet(["div", "article", "section", "p"])

    private func mergeSiblings(of topCandidate: DNode) -> DNode {
        let articleContent = arena.element("div")
        let topScore = topCandidate.score ?? 0
        let siblingScoreThreshold = max(10, topScore * 0.2)
        guard let parent = topCandidate.parent else {
            articleContent.appendChild(topCandidate)
            return articleContent
        }
        let topClass = topCandidate.className
        for sibling in parent.children {
            var append = false
            if sibling === topCandidate {
                append = true
            } else {
                var contentBonus = 0.0
                if sibling.className == topClass && !topClass.isEmpty { contentBonus += topScore * 0.2 }
                if let score = sibling.score, score + contentBonus >= siblingScoreThreshold {
                    append = true
                } else if let paragraph = sibling.tag == "p" ? sibling : wrappedParagraph(sibling) {
                    let density = linkDensity(paragraph)
                    let content = paragraph.innerText
                    let length = paragraph.innerTextLength
                    if length > 80 && density < 0.25 {
                        append = true
                    } else if length < 80 && length > 0 && density == 0 && Regexps.hasSentenceEnd(content) {
                        append = true
                    }
                }
            }
            if append {
                if !Self.alterToDivExceptions.contains(sibling) { sibling.tag = "div" }
                articleContent.appendChild(sibling)
            }
        }
        return articleContent
    }

    /// The one paragraph a sibling holds through wrappers that hold only it (a standfirst set as
    /// `<div class="intro"><div class="lead"><p>...</p></div></div>` beside the body): judged as
    /// Readability.js judges a sibling `<p>`. Not in Readability.js, whose test reads the sibling's
    /// own tag only, so a lead paragraph two wrappers deep was left out of every such article.
    func wrappedParagraph(_ sibling: DNode) -> DNode? {
        guard options.enhancedCleaning else { return nil }
        var node = sibling
        for _ in 0..<Self.paragraphWrapperDepth {
            guard node.elementChildCount == 1, let child = node.firstElementChild,
                  !node.childNodes.contains(where: { $0.kind == .text && !$0.hasNoText }) else { return nil }
            if child.tag == "p" { return child }
            guard child.tag == "div" || child.tag == "section" else { return nil }
            node = child
        }
        return nil
    }

    /// Wrappers looked through for `wrappedParagraph`.
    static let paragraphWrapperDepth = 3
}
