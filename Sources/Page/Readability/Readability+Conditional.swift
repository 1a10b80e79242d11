/// `_cleanConditionally`: removes elements that look like boilerplate by their counts of
/// paragraphs, images, list items, inputs, embeds, link density and class weight.
extension Extractor {
    static let textishTags = TagSet(divToPElements.names + ["span", "li", "td"])
    static let headingTags = TagSet(["h1", "h2", "h3", "h4", "h5", "h6"])
    static let listTags = TagSet(["ul", "ol"])
    static let embedTags = TagSet(["object", "embed", "iframe"])

    func cleanConditionally(_ root: DNode, _ tag: String) {
        guard flags.contains(.cleanConditionally) else { return }
        // A paragraph of the markup that came to hold `<br><br>` paragraphs is a `<div>` only by
        // `replaceBrs`' rewrite: its links are a sentence's, not a container's menu.
        for node in root.elements(tag).reversed() where node.parent != nil && !node.wasParagraph {
            if arena.meter.exhausted { return }
            if shouldRemoveConditionally(node, tag) { node.remove() }
        }
    }

    private func shouldRemoveConditionally(_ node: DNode, _ tag: String) -> Bool {
        var isList = tag == "ul" || tag == "ol"
        if !isList {
            let listLength = node.elements(Self.listTags).reduce(0) { $0 + $1.innerTextLength }
            let ownLength = node.innerTextLength
            isList = ownLength > 0 && Double(listLength) / Double(ownLength) > 0.9
        }
        if tag == "table" && node.isDataTable { return false }
        if hasAncestorTag(node, "table", maxDepth: -1, filter: { $0.isDataTable }) { return false }
        if hasAncestorTag(node, "code") { return false }
        if node.hasDescendant(where: { $0.tag == "table" && $0.isDataTable }) { return false }

        let weight = classWeight(node)
        // A wrapper of the page's marked main content is judged by what it holds, not its name.
        if weight < 0 && !(options.enhancedCleaning && holdsMainContent(node)) { return true }

        let meter = TextMeter.measure(node)
        guard meter.commas < 10 else { return false }

        let p = node.countElements("p")
        let img = node.countElements("img")
        let li = node.countElements("li") - 100
        // Hidden inputs show nothing: ASP.NET and CMS forms carry a dozen around their text.
        let input = node.elements("input").reduce(0) { $0 + ($1.attribute("type")?.lowercased() == "hidden" ? 0 : 1) }
        let headingDensity = textDensity(node, Self.headingTags)

        var embedCount = 0
        for embed in node.elements(Self.embedTags) {
            if embed.attributes.contains(where: { Regexps.videoHosts.matches($0.value) }) { return false }
            embedCount += 1
        }

        let contentLength = meter.length
        if contentLength < 40 && Regexps.isAdOrLoadingText(node.innerText) { return true }

        let density = linkDensity(node)
        let textishDensity = textDensity(node, Self.textishTags)
        let isFigureChild = hasAncestorTag(node, "figure")

        var remove = false
        if !isFigureChild && img > 1 && Double(p) / Double(img) < 0.5 { remove = true }
        if !isList && li > p { remove = true }
        if input > p / 3 { remove = true }
        if !isList && !isFigureChild && headingDensity < 0.9 && contentLength < 25 && (img == 0 || img > 2) && density > 0 {
            remove = true
        }
        if !isList && weight < 25 && density > 0.2 + options.linkDensityModifier { remove = true }
        if weight >= 25 && density > 0.5 + options.linkDensityModifier { remove = true }
        if (embedCount == 1 && contentLength < 75) || embedCount > 1 { remove = true }
        if img == 0 && textishDensity == 0 { remove = true }

        // Simple lists of images may stay.
        if isList && remove {
            for child in node.children where child.elementChildCount > 1 { return remove }
            if img == node.countElements("li") { return false }
        }
        return remove
    }
}
