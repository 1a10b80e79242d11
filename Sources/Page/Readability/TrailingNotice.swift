import TextSupport

/// Notice lines after the article's text: a paywall's "To view the full story, please subscribe
/// ... If you're already a subscriber, you can log in", a comment box's "You must log in to join
/// the discussion", an app or newsletter pitch. Each line alone may say too little to read as a
/// notice ("To view the full story, please subscribe" names one subject), so the short lines at
/// the end are read together, from the last one back: the longest run that reads as a site notice
/// (`isSiteNotice`: short and dense with cookies, consent, subscribing or logging in) goes. A run
/// that reaches into the article's last paragraph says too much else to read as one, and a run
/// is never most of the text. Written by hand: no library we keep judges boilerplate by what it says.
extension Extractor {
    /// What a wall after the text asks of the reader: to subscribe, log in or register, or to
    /// take cookies. A run that speaks only of settings, partners or privacy may be the
    /// article's own last words ("our work spans many partners"), and stays.
    static let wallStems = noticeCookieStems + wallTopicStems

    static func namesAWall(_ text: String) -> Bool {
        guard let letters = lettersOnly(text, maximumWords: noticeMaximumWords) else { return false }
        return wallStems.contains { TextScan.contains(letters, $0) }
    }

    /// A block of one line's text: a paragraph, or a block with no block inside, that is not
    /// itself inside such a line (`<p><span>...</span></p>` is one line).
    func isLine(_ block: DNode, in content: DNode) -> Bool {
        func holdsOneLine(_ node: DNode) -> Bool { node.tag == "p" || !hasChildBlockElement(node) }
        guard block.parent != nil, holdsOneLine(block) else { return false }
        return block.ancestor(within: content) { Self.furnitureBlockTags.contains($0) && holdsOneLine($0) } == nil
    }

    /// The short lines at the end of `content`, last first: each under `lineLimit` UTF-8 bytes,
    /// together at most `maximumWords` words; the run stops at the first line that is not.
    func trailingShortLines(_ content: DNode, lineLimit: Int, maximumWords: Int) -> [Line] {
        var run: [Line] = []
        var words = 0
        for block in content.elements(Self.furnitureBlockTags).reversed() where isLine(block, in: content) {
            let text = block.innerText
            guard !text.isEmpty else { continue }
            guard text.utf8.count < lineLimit else { break }
            words += text.utf8.split(separator: 0x20).count
            guard words <= maximumWords else { break }
            run.append((block, text))
        }
        return run
    }

    typealias Line = (block: DNode, text: String)

    /// Removes `lines` (the last ones of `content`) unless they are a third of its text or more:
    /// a short page that is all notice, or one label and a name, has nothing else to keep.
    func removeTrailingLines(_ lines: ArraySlice<Line>, of content: DNode) {
        guard lines.reduce(0, { $0 + $1.text.utf8.count }) * 3 < content.innerTextLength else { return }
        for line in lines { line.block.remove() }
    }

    func removeTrailingNotice(_ content: DNode) {
        let run = trailingShortLines(content, lineLimit: Self.furnitureLineLimit, maximumWords: Self.noticeMaximumWords)
        var texts: [String] = []
        var noticeLength = 0
        for line in run {
            texts.append(line.text)
            let joined = texts.reversed().joined(separator: " ")
            if Self.isSiteNotice(joined), Self.namesAWall(joined) { noticeLength = texts.count }
        }
        // A short page that is all notice is `isSiteNotice`'s to judge.
        if noticeLength > 0 { removeTrailingLines(run[..<noticeLength], of: content) }
    }
}
