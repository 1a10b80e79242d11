import FoundationEssentials

/// Document preparation: `_unwrapNoscriptImages`, `_removeScripts`, `_prepDocument`,
/// `_replaceBrs`, plus the small node predicates they share.
extension Extractor {
    static let phrasingElements = TagSet([
        "abbr", "audio", "b", "bdo", "br", "button", "cite", "code", "data", "datalist", "dfn", "em", "embed",
        "i", "img", "input", "kbd", "label", "mark", "math", "meter", "noscript", "object", "output",
        "progress", "q", "ruby", "samp", "script", "select", "small", "span", "strong", "sub", "sup",
        "textarea", "time", "var", "wbr",
    ])

    func unwrapNoscriptImages() {
        for img in root.elements("img") {
            let keep = img.attributes.contains { attribute in
                ["src", "srcset", "data-src", "data-srcset"].contains(attribute.name)
                    || Regexps.hasImageExtension(attribute.value)
            }
            if !keep { img.remove() }
        }
        for noscript in root.elements("noscript") where isSingleImage(noscript) {
            guard let previous = noscript.previousElementSibling, isSingleImage(previous),
                  let newImg = noscript.elements("img").first,
                  let prevImg = previous.tag == "img" ? previous : previous.elements("img").first,
                  let replacement = noscript.firstElementChild else { continue }
            for attribute in prevImg.attributes where !attribute.value.isEmpty {
                guard attribute.name == "src" || attribute.name == "srcset" || Regexps.hasImageExtension(attribute.value) else { continue }
                if newImg.attribute(attribute.name) == attribute.value { continue }
                let name = newImg.hasAttribute(attribute.name) ? "data-old-" + attribute.name : attribute.name
                newImg.setAttribute(name, attribute.value)
            }
            previous.replace(with: replacement)
        }
    }

    func isSingleImage(_ start: DNode) -> Bool {
        var node: DNode? = start
        while let current = node {
            if current.tag == "img" { return true }
            if current.elementChildCount != 1 || !current.hasNoText { return false }
            node = current.firstElementChild
        }
        return false
    }

    static let scriptTags = TagSet(["script", "noscript"])

    func removeScripts() {
        var bodyLength: Int?
        for node in root.elements(Self.scriptTags).reversed() where node.parent != nil {
            // `<noscript><div id="x"></noscript>`: gumbo parses noscript content as markup (as a
            // browser without scripts does) and the unclosed div took the rest of the page into
            // the noscript, whose removal left an empty body. A noscript holding most of the
            // body's text is that page: it is unwrapped, not removed. Not in Readability.js.
            if options.enhancedCleaning, node.tag == "noscript", node.firstElementChild != nil {
                let length = node.innerTextLength
                if length >= Self.paragraphLength {
                    let total = bodyLength ?? (body?.innerTextLength ?? 0)
                    bodyLength = total
                    if length * 2 > total {
                        while let child = node.firstChild { node.parent?.insertBefore(child, node) }
                    }
                }
            }
            node.remove()
        }
    }

    func prepDocument() {
        for style in root.elements("style").reversed() { style.remove() }
        if let body { replaceBrs(body) }
        for font in root.elements("font") { font.tag = "span" }
    }

    /// `_nextNode`: skips whitespace-only non-element nodes.
    func nextNode(_ start: DNode?) -> DNode? {
        var next = start
        while let current = next, !current.isElement, current.hasNoText { next = current.next }
        return next
    }

    func replaceBrs(_ element: DNode) {
        for br in element.elements("br") {
            guard br.parent != nil else { continue }
            var next = br.next
            var replaced = false
            while let candidate = nextNode(next), candidate.tag == "br" {
                replaced = true
                let sibling = candidate.next
                candidate.remove()
                next = sibling
            }
            guard replaced else { continue }
            let p = arena.element("p")
            br.replace(with: p)
            next = p.next
            while let current = next {
                if current.tag == "br", let following = nextNode(current.next), following.tag == "br" { break }
                if !isPhrasingContent(current) { break }
                let sibling = current.next
                p.appendChild(current)
                next = sibling
            }
            while let last = p.lastChild, isWhitespace(last) { last.remove() }
            if let parent = p.parent, parent.tag == "p" { parent.tag = "div"; parent.wasParagraph = true }
        }
    }

    /// `_isPhrasingContent`, iterative: A/DEL/INS count only when all their content does.
    func isPhrasingContent(_ node: DNode) -> Bool {
        var stack = [node]
        while let current = stack.popLast() {
            if current.kind == .text { continue }
            guard current.isElement else { return false }
            if Self.phrasingElements.contains(current) { continue }
            if current.tag == "a" || current.tag == "del" || current.tag == "ins" {
                stack.append(contentsOf: current.childNodes)
                continue
            }
            return false
        }
        return true
    }

    func isWhitespace(_ node: DNode) -> Bool {
        (node.kind == .text && node.hasNoText) || (node.isElement && node.tag == "br")
    }
}
