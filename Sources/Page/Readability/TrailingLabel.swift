import TextSupport

/// A label left standing at the end of the text: "Kontakt:", "Autoren:", "Von:", "Mehr Themen:",
/// "Related posts:", "Lue seuraavaksi:". The rail, contact box or author card it introduced was
/// removed (or never was text: a name, a logo's alt text), and the label read as the article's
/// last line. A label is a line of at most `trailingLabelMaximumWords` words ending with a colon;
/// it goes, with the lines after it, when all of those are short and none reads as text: no line
/// ends a sentence ("Be there or be square!" after "Anfahrt:" and an address is the article's), and
/// none is a "key: value" line (a photo's "Brennweite in mm: 180" data under "Details:"). Only
/// the short lines at the end are looked at, as `removeTrailingNotice` does. Written by hand: no
/// library we keep judges lines like these.
extension Extractor {
    static let trailingLabelMaximumWords = 3
    /// Lines at least this long (UTF-8 bytes) are text: the run of short lines stops there.
    static let trailingLabelLineLimit = 150
    /// The short lines at the end are read up to this many words.
    static let trailingLabelRunWords = 40
    /// A control's text: "zurück", "Seite drucken", "Back to top".
    static let endingControlMaximumLength = 30

    func removeTrailingLabel(_ content: DNode) {
        let run = trailingShortLines(content, lineLimit: Self.trailingLabelLineLimit, maximumWords: Self.trailingLabelRunWords)
        // A heading or a script control as the last line titles or does nothing of the text's:
        // a rail's title whose teasers went ("Mehr zum Thema"), a "Back" link to history.back().
        var cut: Int? = run.first.flatMap { isEndingControl($0.block) ? 0 : nil }
        // The topmost label with nothing that reads as text after it.
        for index in run.indices {
            let text = run[index].text
            if Self.isLabelLine(text) { cut = index }
            if Self.readsAsText(text) { break }
        }
        if let cut { removeTrailingLines(run[...cut], of: content) }
    }

    /// A short heading (a rail's title), or a short line that is one link going to `javascript:`
    /// (the browser's back button, print); a paragraph set as such a link is text.
    func isEndingControl(_ line: DNode) -> Bool {
        if Self.headingTags.contains(line) { return line.innerTextLength < Self.railTitleMaximumLength }
        guard line.innerTextLength <= Self.endingControlMaximumLength else { return false }
        let links = line.elements("a")
        guard links.count == 1, let href = links[0].attribute("href"), Self.startsWithJavaScriptScheme(href) else { return false }
        return links[0].innerTextLength == line.innerTextLength
    }

    /// "Kontakt:", "Mehr Themen:", "For more information:".
    static func isLabelLine(_ text: String) -> Bool {
        guard text.hasSuffix(":") || text.hasSuffix("：") else { return false }
        return text.split(whereSeparator: { $0 == " " }).count <= trailingLabelMaximumWords
    }

    /// A line that ends a sentence or is a "key: value" line (a colon before its end).
    static func readsAsText(_ text: String) -> Bool {
        guard let last = text.last else { return false }
        if last == "." || last == "!" || last == "?" { return true }
        return text.dropLast().contains(":")
    }
}
