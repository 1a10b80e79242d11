import PulseModel
import TextSupport

/// `_prepArticle` and the cleaners it calls, in Readability.js's order.
extension Extractor {
    func prepArticle(_ content: DNode) {
        markDataTables(content)
        fixLazyImages(content)
        cleanConditionally(content, "form")
        cleanConditionally(content, "fieldset")
        for tag in ["object", "embed", "footer", "link", "aside"] { clean(content, tag) }
        for topCandidate in content.children {
            cleanMatchedNodes(topCandidate) { node, matchBytes in
                Regexps.isShareElement(matchBytes) && node.textContent.utf16.count < 500
            }
        }
        for tag in ["iframe", "input", "textarea", "select", "button"] { clean(content, tag) }
        cleanHeaders(content)
        cleanConditionally(content, "table")
        cleanConditionally(content, "ul")
        cleanConditionally(content, "div")
        for heading in content.elements("h1") { heading.tag = "h2" }

        for paragraph in content.elements("p").reversed() where paragraph.parent != nil {
            let media = paragraph.countElements("img") + paragraph.countElements("embed")
                + paragraph.countElements("object") + paragraph.countElements("iframe")
            if media == 0 && paragraph.hasNoText {
                // Leave a line break behind so the text on either side does not fuse
                // ("editor</font><p></p><font>Volunteers" read as "editorVolunteers").
                let gap = arena.make(.text, text: "\n")
                paragraph.replace(with: gap)
            }
        }
        for br in content.elements("br") {
            if let next = nextNode(br.next), next.tag == "p" { br.remove() }
        }
        for table in content.elements("table") {
            let body = hasSingleTagInsideElement(table, "tbody") ? table.firstElementChild! : table
            guard hasSingleTagInsideElement(body, "tr"), let row = body.firstElementChild,
                  hasSingleTagInsideElement(row, "td"), let cell = row.firstElementChild else { continue }
            cell.tag = cell.childNodes.allSatisfy(isPhrasingContent) ? "p" : "div"
            table.replace(with: cell)
        }
    }

    func clean(_ root: DNode, _ tag: String) {
        let isEmbed = tag == "object" || tag == "embed" || tag == "iframe"
        for element in root.elements(tag).reversed() where element.parent != nil {
            if isEmbed && element.attributes.contains(where: { Regexps.videoHosts.matches($0.value) }) { continue }
            element.remove()
        }
    }

    static let titleHeadingTags = TagSet(["h1", "h2"])
    static let lazyImageTags = TagSet(["img", "picture", "figure"])
    static let imageTags = TagSet(["img", "picture"])

    func cleanHeaders(_ root: DNode) {
        for heading in root.elements(Self.titleHeadingTags).reversed() where classWeight(heading) < 0 {
            heading.remove()
        }
    }

    func cleanMatchedNodes(_ element: DNode, _ filter: (DNode, [UInt8]) -> Bool) {
        let end = nextElementInOrder(element, skipChildren: true)
        var next = nextElementInOrder(element)
        while let current = next, current !== end {
            if filter(current, current.matchBytes) {
                next = removeAndGetNext(current)
            } else {
                next = nextElementInOrder(current)
            }
        }
    }

    func markDataTables(_ root: DNode) {
        for table in root.elements("table") {
            table.isDataTable = isDataTable(table)
        }
    }

    private func isDataTable(_ table: DNode) -> Bool {
        if table.attribute("role") == "presentation" { return false }
        if table.attribute("datatable") == "0" { return false }
        if let summary = table.attribute("summary"), !summary.isEmpty { return true }
        if let caption = table.elements("caption").first, caption.firstChild != nil { return true }
        if table.hasDescendant(where: { ["col", "colgroup", "tfoot", "thead", "th"].contains($0.tag) }) { return true }
        if table.hasDescendant(where: { $0.tag == "table" }) { return false }
        var rows = 0
        var columns = 0
        for row in table.elements("tr") {
            rows += Int(row.attribute("rowspan") ?? "").flatMap { $0 > 0 ? $0 : nil } ?? 1
            var inRow = 0
            for cell in row.elements("td") {
                inRow += Int(cell.attribute("colspan") ?? "").flatMap { $0 > 0 ? $0 : nil } ?? 1
            }
            columns = max(columns, inRow)
        }
        if columns == 1 || rows == 1 { return false }
        if rows >= 10 || columns > 4 { return true }
        return rows * columns > 10
    }

    /// `_fixLazyImages`: promotes data-src / data-srcset (any attribute naming an image file)
    /// to src / srcset and drops tiny base64 placeholders.
    func fixLazyImages(_ root: DNode) {
        for element in root.elements(Self.lazyImageTags) {
            if let src = element.attribute("src"), let mime = base64DataMime(src) {
                if mime == "image/svg+xml" { continue }
                let hasOtherImage = element.attributes.contains { $0.name != "src" && Regexps.hasImageExtension($0.value) }
                if hasOtherImage, let payload = Self.base64PayloadLength(src), payload < 133 {
                    element.removeAttribute("src")
                }
            }
            let src = element.attribute("src") ?? ""
            let srcset = element.attribute("srcset") ?? ""
            if (!src.isEmpty || (!srcset.isEmpty && srcset != "null")) && !TextScan.contains(element.className.lowercased(), "lazy") {
                continue
            }
            for attribute in element.attributes where !["src", "srcset", "alt"].contains(attribute.name) {
                guard let target = lazyTarget(attribute.value) else { continue }
                if element.tag == "img" || element.tag == "picture" {
                    element.setAttribute(target, attribute.value)
                } else if element.tag == "figure" && element.elements(Self.imageTags).isEmpty {
                    let img = arena.element("img")
                    img.setAttribute(target, attribute.value)
                    element.appendChild(img)
                }
            }
        }
    }

    /// `/^data:\s*([^\s;,]+)\s*;\s*base64\s*,/i` -> the MIME type.
    private func base64DataMime(_ src: String) -> String? {
        let lower = src.lowercased()
        guard lower.hasPrefix("data:") else { return nil }
        let rest = lower.dropFirst(5).drop { $0 == " " }
        let mime = rest.prefix { $0 != ";" && $0 != "," && !$0.isWhitespace }
        guard !mime.isEmpty else { return nil }
        let after = rest.dropFirst(mime.count).drop { $0 == " " }
        guard after.hasPrefix(";") else { return nil }
        let encoding = after.dropFirst().drop { $0 == " " }
        guard encoding.hasPrefix("base64") else { return nil }
        guard encoding.dropFirst(6).drop(while: { $0 == " " }).hasPrefix(",") else { return nil }
        return String(mime)
    }

    /// `/\.(jpg|jpeg|png|webp)\s+\d/` -> srcset; `/^\s*\S+\.(jpg|jpeg|png|webp)\S*\s*$/` -> src.
    private func lazyTarget(_ value: String) -> String? {
        let lower = value.lowercased()
        let bytes = Array(lower.utf8)
        let extensions = [".jpg", ".jpeg", ".png", ".webp"].map { Array($0.utf8) }
        for ext in extensions {
            for start in Self.occurrences(of: ext, in: bytes) {
                let after = String(decoding: bytes[(start + ext.count)...], as: UTF8.self)
                let spaces = after.prefix { $0.isWhitespace }
                if !spaces.isEmpty, let digit = after.dropFirst(spaces.count).first, digit.isNumber { return "srcset" }
            }
        }
        let trimmed = TextScan.trimmingWhitespace(lower)
        if !trimmed.isEmpty, !trimmed.contains(where: { $0.isWhitespace }) {
            let trimmedBytes = Array(trimmed.utf8)
            if extensions.contains(where: { (Self.occurrences(of: $0, in: trimmedBytes).first ?? 0) > 0 }) { return "src" }
        }
        return nil
    }

    /// Readability.js's `src.length - (src.search(/base64\s*/i) + 7)`, nil without "base64". An
    /// ASCII URI (every data URI in practice) is searched on its bytes, where lower-casing it and
    /// `firstRange(of:)` cost ~57k instructions an image; other text takes that old path.
    static func base64PayloadLength(_ src: String) -> Int? {
        guard TextScan.isASCII(src) else {
            let lowered = src.lowercased()
            guard let found = lowered.firstRange(of: "base64") else { return nil }
            return src.utf16.count - (lowered.utf16.distance(from: lowered.startIndex, to: found.lowerBound) + 7)
        }
        // ASCII: a byte is a UTF-16 unit, and only A-Z change case.
        let start = TextScan.withBytes(src) { bytes -> Int? in
            let marker = base64Marker
            guard bytes.count >= marker.count else { return nil }
            return (0...(bytes.count - marker.count)).first { start in
                (0..<marker.count).allSatisfy { offset in
                    let byte = bytes[start + offset]
                    return TextScan.lowercasedASCII(byte) == marker[offset]
                }
            }
        }
        return start.map { src.utf8.count - ($0 + 7) }
    }

    private static let base64Marker = Array("base64".utf8)

    /// Where `needle` starts in `bytes`, each offset once (matches may overlap). Byte by byte, as
    /// Foundation's `range(of:)` compared here before: the standard library's `firstRange(of:)`
    /// set up a searcher per call, 15k instructions for a short attribute.
    private static func occurrences(of needle: [UInt8], in bytes: [UInt8]) -> [Int] {
        guard !needle.isEmpty, bytes.count >= needle.count else { return [] }
        var found: [Int] = []
        for start in 0...(bytes.count - needle.count) where bytes[start] == needle[0] {
            if bytes[start..<(start + needle.count)].elementsEqual(needle) { found.append(start) }
        }
        return found
    }

    /// `_getTextDensity`.
    func textDensity(_ element: DNode, _ tags: TagSet) -> Double {
        let total = element.innerTextLength
        guard total > 0 else { return 0 }
        var children = 0
        for child in element.elements(tags) {
            if arena.meter.exhausted { return 0 }
            children += child.innerTextLength
        }
        return Double(children) / Double(total)
    }

    /// `_simplifyNestedElements` from `_postProcessContent`.
    func simplifyNestedElements(_ content: DNode) {
        var node: DNode? = content
        while let current = node {
            if current.parent != nil, current.tag == "div" || current.tag == "section" {
                if isElementWithoutContent(current) {
                    node = removeAndGetNext(current)
                    continue
                }
                if hasSingleTagInsideElement(current, "div") || hasSingleTagInsideElement(current, "section"),
                   let child = current.firstElementChild {
                    for attribute in current.attributes { child.setAttribute(attribute.name, attribute.value) }
                    current.replace(with: child)
                    node = child
                    continue
                }
            }
            node = nextElementInOrder(current)
        }
    }
}
