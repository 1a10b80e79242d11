import PulseModel
import FoundationEssentials
import Glibc
import OpenGraph
import TextSupport

/// Turns the extracted subtree into allow-listed HTML and block-separated plain text.
/// Iterative (explicit stack) so deep input cannot overflow the call stack.
struct ArticleSerializer {
    let base: String
    let options: ReadabilityOptions

    /// Kept as themselves (after attribute filtering).
    static let blockTags: Set<String> = ["p", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "blockquote", "pre", "figure"]
    static let inlineTags: Set<String> = ["em", "strong", "code", "a"]
    static let renamed: [String: String] = ["b": "strong", "i": "em", "h1": "h2", "figcaption": "p", "dt": "p", "dd": "p"]
    /// Dropped with their content.
    static let droppedTags = TagSet([
        // MathML is kept as its text (v=GM/r); its annotations would repeat it in TeX.
        "script", "style", "noscript", "iframe", "object", "embed", "svg", "annotation", "annotation-xml", "button", "input",
        "select", "textarea", "template", "video", "audio", "canvas", "head", "title", "meta", "link", "nav",
        "source", "track", "map", "area", "dialog",
    ])
    /// Unwrapped elements that still separate blocks of text.
    static let blockish: Set<String> = [
        "div", "section", "article", "main", "header", "footer", "aside", "table", "tbody", "thead", "tfoot",
        "tr", "td", "th", "caption", "dl", "address", "details", "summary", "hr", "center", "body", "picture",
        // A form left in the article after the cleaning is the page's own wrapper (ASP.NET puts the
        // whole body in one); its controls are dropped, its text kept, as Readability.js keeps it.
        "form",
    ]
    static let keptTags = blockTags.union(inlineTags)
    /// Blocks whose direct text is fine without a wrapping <p>.
    static let inlineContainers: Set<String> = ["p", "h2", "h3", "h4", "h5", "h6", "li", "pre", "blockquote"]

    private enum Step {
        case open(DNode)
        case close(tag: String, htmlMark: Int, startLength: Int, isBlock: Bool)
    }

    struct Output {
        var html: String
        var text: String
    }

    func serialize(_ root: DNode) -> Output {
        var html: [UInt8] = []
        var blocks: [String] = []
        var current = ""
        // Characters kept so far, as the limit counts them. Until the limit is near it holds the
        // UTF-8 byte count instead, never less than the characters: counting Characters of every
        // block walked each one again (~1% of an extraction).
        var textLength = 0
        var textLengthIsExact = false
        var containers: [String] = []
        var implicitParagraph = false
        var preDepth = 0
        var captionDepth = 0
        var stack: [Step] = root.childNodes.reversed().map { .open($0) }

        func flush() {
            let cleaned = preDepth > 0 ? TextCleaning.cleanKeepingLines(current) : TextCleaning.clean(current)
            current = ""
            guard !cleaned.isEmpty, withinTextLimit() else { return }
            blocks.append(cleaned)
            textLength += (textLengthIsExact ? cleaned.count : cleaned.utf8.count) + 2
        }
        func withinTextLimit() -> Bool {
            if textLength < options.maxTextLength { return true }
            if !textLengthIsExact {
                textLength = blocks.reduce(0) { $0 + $1.count + 2 }
                textLengthIsExact = true
            }
            return textLength < options.maxTextLength
        }
        func closeImplicit() {
            if implicitParagraph { html += Array("</p>".utf8); implicitParagraph = false }
        }
        func ensureInlineContext() {
            if (containers.last.map { Self.inlineContainers.contains($0) } ?? false) || implicitParagraph { return }
            html += Array("<p>".utf8)
            implicitParagraph = true
        }

        while let step = stack.popLast() {
            switch step {
            case let .close(tag, mark, startLength, isBlock):
                if isBlock || Self.blockish.contains(tag) { flush() }
                if tag == "pre" { preDepth -= 1 }
                if tag == "figcaption" { captionDepth -= 1 }
                if !tag.isEmpty && Self.keptTags.contains(tag) || tag == "img" {
                    if Self.blockTags.contains(tag) { closeImplicit(); containers.removeLast() }
                    if html.count == mark + startLength && tag != "img" {
                        html.removeLast(startLength) // nothing inside: drop the empty element
                    } else if tag != "img" {
                        html += Array("</\(tag)>".utf8)
                    }
                }
            case let .open(node):
                if !withinTextLimit() { continue }
                if node.kind == .text {
                    let visible = node.text.unicodeScalars.contains { !$0.isJSWhitespace }
                    if visible { ensureInlineContext() }
                    if options.includeHTML && (visible || !html.isEmpty) { html += Self.escape(node.text, attribute: false) }
                    if captionDepth == 0 || !options.enhancedCleaning { current += node.text }
                    continue
                }
                guard node.isElement, !Self.droppedTags.contains(node) else { continue }
                let children: [Step] = node.childNodes.reversed().map { .open($0) }
                if node.tag == "br" {
                    html += Array("\n".utf8)
                    current += "\n"
                    continue
                }
                if node.tag == "img" {
                    // An image separates the words on either side ("Cocktail<img>Friendsgiving").
                    current += " "
                    guard options.includeHTML, let src = imageSource(node) else { continue }
                    ensureInlineContext()
                    var tag = "<img src=\"\(Self.escapeString(src))\""
                    if let alt = node.attribute("alt"), !alt.isEmpty { tag += " alt=\"\(Self.escapeString(TextCleaning.clean(alt)))\"" }
                    html += Array((tag + ">").utf8)
                    continue
                }
                let tag = Self.renamed[node.tag] ?? node.tag
                if node.tag == "figcaption" { captionDepth += 1 }
                if Self.blockTags.contains(tag) {
                    closeImplicit()
                    flush()
                    if tag == "pre" { preDepth += 1 }
                    let start = Array("<\(tag)>".utf8)
                    let mark = html.count
                    html += start
                    containers.append(tag)
                    stack.append(.close(tag: tag, htmlMark: mark, startLength: start.count, isBlock: true))
                    if node.tag == "figcaption" { stack.append(.close(tag: "figcaption", htmlMark: 0, startLength: 0, isBlock: false)) }
                } else if Self.inlineTags.contains(tag) {
                    var start = "<\(tag)>"
                    if tag == "a" {
                        guard options.includeHTML, let href = node.attribute("href").flatMap(linkTarget) else {
                            stack.append(contentsOf: children)
                            continue
                        }
                        start = "<a href=\"\(Self.escapeString(href))\">"
                    }
                    if !(tag == "code" && containers.last == "pre") { ensureInlineContext() }
                    let bytes = Array(start.utf8)
                    stack.append(.close(tag: tag, htmlMark: html.count, startLength: bytes.count, isBlock: false))
                    html += bytes
                } else if Self.blockish.contains(tag) {
                    closeImplicit()
                    flush()
                    stack.append(.close(tag: tag, htmlMark: 0, startLength: 0, isBlock: true))
                }
                stack.append(contentsOf: children)
            }
        }
        flush()
        closeImplicit()
        var text = Composition.composed(blocks.joined(separator: "\n\n"))
        if text.utf8.count > options.maxTextLength, text.count > options.maxTextLength {
            text = String(text.prefix(options.maxTextLength))
        }
        return Output(html: options.includeHTML ? String(decoding: html, as: UTF8.self) : "", text: text)
    }

    private func imageSource(_ node: DNode) -> String? {
        var candidates: [String] = []
        if let src = node.attribute("src") { candidates.append(src) }
        if let srcset = node.attribute("srcset"), let first = srcset.split(separator: ",").first?.split(separator: " ").first {
            candidates.append(String(first))
        }
        for raw in candidates {
            if raw.utf8.prefix(5).map({ $0 | 0x20 }).elementsEqual("data:".utf8) { continue }
            if let url = SafeURL.absoluteHTTP(raw, base: base) { return url }
        }
        return nil
    }

    private func linkTarget(_ raw: String) -> String? {
        let trimmed = raw.trimmingASCIIWhitespace()
        if trimmed.lowercased().hasPrefix("mailto:") {
            guard trimmed.utf8.count <= SafeURL.maxLength, !trimmed.unicodeScalars.contains(where: TextCleaning.isUnsafe) else { return nil }
            return trimmed
        }
        if trimmed.hasPrefix("#") { return nil }
        return SafeURL.absoluteHTTP(trimmed, base: base)
    }

    static func escapeString(_ text: String) -> String { String(decoding: escape(text, attribute: true), as: UTF8.self) }

    static func escape(_ text: String, attribute: Bool) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            if scalar.value < 0x80 {
                switch scalar.value {
                case 0x26: out += [0x26, 0x61, 0x6D, 0x70, 0x3B] // &amp;
                case 0x3C: out += [0x26, 0x6C, 0x74, 0x3B] // &lt;
                case 0x3E: out += [0x26, 0x67, 0x74, 0x3B] // &gt;
                case 0x22 where attribute: out += [0x26, 0x71, 0x75, 0x6F, 0x74, 0x3B] // &quot;
                case 0x0A, 0x09: out.append(UInt8(scalar.value))
                case 0..<0x20, 0x7F: break
                default: out.append(UInt8(scalar.value))
                }
                continue
            }
            if !TextCleaning.isUnsafe(scalar) { out += Array(String(scalar).utf8) }
        }
        return out
    }
}

extension TextCleaning {
    /// For <pre>: keeps line breaks, drops unsafe characters and trailing blank lines.
    static func cleanKeepingLines(_ text: String) -> String {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            String(String.UnicodeScalarView(line.unicodeScalars.filter { !isUnsafe($0) || $0 == "\t" }))
        }
        return TextScan.trimmingWhitespace(lines.joined(separator: "\n"))
    }
}
