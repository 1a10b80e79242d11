import OpenGraph
import PulseModel
import TextSupport

/// Reader threads rendered into the page: fifteen comments of fifty words outscore a short
/// article, as teaser rails did, and Readability.js only drops a thread whose class or id says
/// "comment". Measured on the weighted fixture pages (page-weight.py adds a 15-comment thread with
/// neutral class names): without this rule the thread was extracted instead of the article on 15
/// of the 16 pages (mean F1 0.028).
///
/// What marks a comment is its reply control, a link or button saying only "Reply" (or the same
/// word in the sources' other languages), not its class name or its text: the article's own
/// lists, quotes and letters have none. A container whose element children are mostly such
/// items loses those items, and keeps everything else it holds: a thread rendered as siblings
/// of the article's own element leaves the article in place.
extension Extractor {
    /// The word a reply control says, in the app's languages (en, es, pt) and a few neighbours.
    static let replyWords: Set<String> = [
        "reply", "respond", "responder", "responda", "contestar", "répondre", "repondre", "antworten",
        "rispondi", "antwoorden", "reageer",
    ]
    /// A switch, not a `Set`: hashing every element's tag was most of this pass's cost.
    static func isReplyControlTag(_ tag: String) -> Bool {
        switch tag {
        case "a", "button", "span": true
        default: false
        }
    }
    /// A control is one word with perhaps an icon: past this many nodes or bytes it is text.
    static let replyControlMaximumNodes = 8
    static let replyControlMaximumBytes = 40
    static let shortestReplyWord = replyWords.map(\.utf8.count).min() ?? 1
    static let replyWordLengths = Set(replyWords.map(\.utf8.count))

    /// `isReplyWord` for ASCII text, on the bytes (nil for any other text): the letters are A-Z
    /// and a-z there, and a span whose length no reply word has is answered without building it.
    /// Every short link on a page is asked; lower-casing and scanning scalars cost 2k
    /// instructions a link.
    static func asciiReplyWord(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool? {
        guard !bytes.contains(where: { $0 >= 0x80 }) else { return nil }
        func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) &- 0x61 < 26 }
        guard let first = bytes.firstIndex(where: isLetter), let last = bytes.lastIndex(where: isLetter) else { return false }
        guard replyWordLengths.contains(last - first + 1) else { return false }
        let word = String(unsafeUninitializedCapacity: last - first + 1) { out in
            for index in first...last {
                let byte = bytes[index]
                out[index - first] = TextScan.lowercasedASCII(byte)
            }
            return last - first + 1
        }
        return replyWords.contains(word)
    }
    static let threadMinimumComments = 3

    /// Marks every element that is or holds a reply control. Each control marks its ancestors up
    /// to the first one already marked, so every element is marked at most once; each candidate
    /// control is read for at most `replyControlMaximumNodes` nodes. The pass is linear in the page.
    func markReplyControls(in body: DNode) {
        var titles: [DNode] = []
        body.forEachDescendant { node in
            // The same walk finds the thread titles (`markThreadTitles`).
            if node.kind == .text {
                if let title = threadTitleCandidate(holding: node, in: body) { titles.append(title) }
                return true
            }
            guard node.isElement, Self.isReplyControlTag(node.tag), isReplyControl(node) else { return true }
            var current: DNode? = node
            while let element = current, element !== body, !element.holdsReplyControl {
                element.holdsReplyControl = true
                current = element.parent
            }
            return true
        }
        markThreadTitles(titles)
    }

    private func isReplyControl(_ node: DNode) -> Bool {
        // What it says is measured first, and read only when short: most links on a page are
        // headlines or menu entries, and nothing else about them is looked at then.
        var bytes = 0
        var nodes = 0
        node.forEachDescendant { child in
            nodes += 1
            if child.kind == .text { bytes += child.text.utf8.count }
            return nodes <= Self.replyControlMaximumNodes && bytes <= Self.replyControlMaximumBytes
        }
        replyControlNodesVisited += nodes
        guard nodes <= Self.replyControlMaximumNodes, bytes <= Self.replyControlMaximumBytes else { return false }
        let saysReply = bytes >= Self.shortestReplyWord
            ? Self.isReplyWord(node.textContent)
            // An icon-only button names itself in its label.
            : node.attribute("aria-label").map(Self.isReplyWord) ?? false
        guard saysReply else { return false }
        // A link to another site (an embedded post's "reply" intent) answers somewhere else.
        if node.tag == "a", isOffSiteLink(node.attribute("href")) { return false }
        return !isInsideSentence(node)
    }

    /// A link with another host; in-page, relative and `javascript:` links are the page's own.
    private func isOffSiteLink(_ href: String?) -> Bool {
        guard let href, let siteHost, let authority = URLResolver.split(href.trimmingASCIIWhitespace()).authority else {
            return false
        }
        return !Self.sameSite(Self.comparableHost(authority), siteHost)
    }

    /// "Please <a>reply</a> by post": an element in running text is a word of the sentence. A
    /// control (or a block of its own) stands between elements, or beside separators ("Reply ·
    /// Report"). Looks through up to three wrappers that are their parent's only child.
    func isInsideSentence(_ node: DNode) -> Bool {
        var current = node
        for _ in 0..<3 {
            if current.prev != nil || current.next != nil {
                return [current.prev, current.next].contains { sibling in
                    guard let sibling, sibling.kind == .text else { return false }
                    return Self.hasLetter(sibling.text)
                }
            }
            guard let parent = current.parent else { return false }
            current = parent
        }
        return false
    }

    /// Whether `text` holds a letter: ASCII text on its bytes (the Unicode property tables cost
    /// more than the rest of the teaser and reply rules), other text by its scalars' properties.
    static func hasLetter(_ text: String) -> Bool {
        let ascii = TextScan.withBytes(text) { bytes -> Bool? in
            var allASCII = true
            for byte in bytes {
                if byte >= 0x80 { allASCII = false; continue }
                if (byte | 0x20) &- 0x61 < 26 { return true }
            }
            return allASCII ? false : nil
        }
        return ascii ?? text.unicodeScalars.contains(where: \.properties.isAlphabetic)
    }

    /// "Reply", " ↩ reply ", "REPLY »": the word with whatever symbols and spaces surround it.
    static func isReplyWord(_ text: String) -> Bool {
        if let answer = TextScan.withBytes(text, asciiReplyWord) { return answer }
        let scalars = text.lowercased().unicodeScalars
        guard let first = scalars.firstIndex(where: \.properties.isAlphabetic),
              let last = scalars.lastIndex(where: \.properties.isAlphabetic) else { return false }
        return replyWords.contains(String(scalars[first...last]))
    }

    /// The comments among `node`'s element children when they make it a thread: at least three,
    /// and at least 80% of the children (the rest are the thread's heading, form or pager). Reads
    /// each child's mark once, so every container costs its number of children.
    func threadComments(_ node: DNode) -> [DNode] {
        guard node.holdsReplyControl, !Self.isReplyControlTag(node.tag) else { return [] }
        var children = 0
        var comments: [DNode] = []
        var child = node.firstElementChild
        while let item = child {
            children += 1
            if item.holdsReplyControl { comments.append(item) }
            child = item.nextElementSibling
        }
        guard comments.count >= Self.threadMinimumComments, comments.count * 5 >= children * 4 else { return [] }
        return comments
    }

    /// Removes the comments and the thread's short heading; the container too when nothing with
    /// text is left in it. Returns where the walk goes on.
    func removeThread(_ container: DNode, comments: [DNode]) -> DNode? {
        removeShortHeading(before: comments[0])
        for comment in comments { comment.remove() }
        guard container.innerTextLength == 0 else { return nextElementInOrder(container) }
        removeShortHeading(before: container)
        return removeAndGetNext(container)
    }

    /// The title of a reader thread or of its form, the whole text of a heading: "Comments",
    /// "12 Comments:", "Comments (3)", "92 Responses to ...", "Reader comments", "Leave a Reply",
    /// "Post a Comment", and the same in the sources' other languages. What follows such a heading
    /// in its container is the thread or its form: blog engines (Movable Type, TypePad, Blogger,
    /// WordPress themes) render comments as plain blocks signed "Posted by: ... at ...", with no
    /// reply control and no class name Readability's rules know.
    static func isThreadTitle(_ text: String) -> Bool {
        guard text.utf8.count <= 4 * railTitleMaximumLength, mayNameThread(text) else { return false }
        let lowered = text.lowercased()
        guard lowered.utf8.count <= railTitleMaximumLength else { return false }
        // Words of letters only: "(3)", ":" and "»" fall away; a count before them is noted.
        var hasCount = lowered.prefix { !$0.isLetter }.contains(where: \.isNumber)
        var words = lowered.split { !$0.isLetter }[...]
        guard var name = words.popFirst().map(String.init) else { return false }
        if ["no", "one", "reader", "readers", "user"].contains(name), let second = words.popFirst() {
            hasCount = hasCount || name == "no" || name == "one"
            name = String(second)
        }
        if threadTitleWords.contains(name) {
            // "Comments", "No comments yet", or "92 Responses to <the post's title>".
            guard let next = words.first else { return true }
            return next == "yet" || (hasCount && ["to", "on", "for"].contains(String(next)))
        }
        return threadFormTitles.matchStart(of: letterWords(lowered))
    }

    /// Whether `text` holds the stem of a thread word ("comment", "respon", "repl", ...), in any
    /// ASCII case, in its first bytes: the cheap test that most text fails before
    /// `isThreadTitle` reads its words. The thread word comes in a title's first words
    /// ("Comments", "92 Responses to ...", "Schreibe einen Kommentar"). Every short text node of
    /// the page is asked, so it is a plain loop: a keyword list's setup per call was most of it.
    static func mayNameThread(_ text: String) -> Bool {
        TextScan.withBytes(text) { bytes in
            var index = 0
            while index < bytes.count, bytes[index] <= 0x20 { index += 1 }
            let end = min(bytes.count, index + threadStemWindow)
            while index < end {
                let byte = bytes[index] | 0x20
                // The stems start with c, r, t, p or k.
                if byte == 0x63 || byte == 0x72 || byte == 0x74 || byte == 0x70 || byte == 0x6B {
                    for stem in threadStems where stem[0] == byte && index + stem.count <= bytes.count {
                        var offset = 1
                        while offset < stem.count, bytes[index + offset] | 0x20 == stem[offset] { offset += 1 }
                        if offset == stem.count { return true }
                    }
                }
                index += 1
            }
            return false
        }
    }

    static let threadStemWindow = 32
    static let threadStems: [[UInt8]] = ["comment", "coment", "respon", "repl", "reacties", "trackback", "pingback", "kommentar"]
        .map { Array($0.utf8) }

    /// The element a thread title may stand in, found from its text: each text node is read once
    /// (during `markReplyControls`' walk), and only one naming a thread word leads to the element
    /// around it (the nearest heading, block or bold run), read up to a title's length. Measuring
    /// every block's text instead cost a walk of its subtree per block.
    func threadTitleCandidate(holding text: DNode, in body: DNode) -> DNode? {
        // A title's own text is short: a paragraph's text node is passed over unread, and so is a
        // link's (a title that is a link jumps to the thread; it titles nothing).
        guard text.text.utf8.count <= 4 * Self.railTitleMaximumLength, text.parent?.tag != "a",
              Self.mayNameThread(text.text) else { return nil }
        var holder = text.parent
        while let current = holder, current !== body, !Self.threadTitleTags.contains(current) { holder = current.parent }
        guard let holder, holder !== body, holder !== lastTitleHolder else { return nil }
        // Each holder is read once, however many of its text nodes name a thread word.
        lastTitleHolder = holder
        guard holder.textPrefix(Self.railTitleMaximumLength + 1).utf8.count <= Self.railTitleMaximumLength else { return nil }
        return holder
    }

    /// Marks the thread titles among `candidates` (`markThreadAfterTitle`).
    func markThreadTitles(_ candidates: [DNode]) {
        for title in candidates { markThreadAfterTitle(title) }
        hasThreadMarks = hasThreadMarks || candidates.contains { $0.followsThreadTitle }
    }

    static let threadTitleWords: Set<String> = [
        "comment", "comments", "response", "responses", "replies", "trackback", "trackbacks", "pingbacks",
        "comentario", "comentarios", "comentários", "commentaires", "kommentare", "commenti", "reacties",
    ]
    static let threadFormTitles = LiteralPrefixes([
        "leave a reply", "leave a comment", "leave a response", "post a comment", "post a new comment",
        "post new comment", "add a comment", "add your comment", "deja un comentario", "dejar un comentario",
        "deixe um comentário", "deixe seu comentário", "deixe o seu comentário", "laisser un commentaire",
        "lascia un commento", "schreibe einen kommentar",
    ])

    /// Marks each thread title of the page (`isThreadTitle`, in a heading or a block or bold run
    /// of its own; not a link to the thread, as "3 Comments" beside a post's date is) and what
    /// follows it in its container: the thread, its form. Marked before the grab, while the title is there (a heading whose id says
    /// "comments" leaves with the unlikely candidates); removed after it
    /// (`removeMarkedThreads`), so the comments still count where they did in choosing the
    /// article's block: taking them out first changed that block on pages where they were half
    /// of its text.
    func markThreadAfterTitle(_ heading: DNode) {
        // Marked whole, as Readability's preparation replaces some wrappers by their only child;
        // a title inside a thread already marked is not marked again, so each node is marked once.
        guard !heading.followsThreadTitle else { return }
        let length = heading.innerTextLength
        guard length <= Self.railTitleMaximumLength, Self.isThreadTitle(heading.innerText),
              heading.elements("a").reduce(0, { $0 + $1.innerTextLength }) * 2 < length,
              // "<b>Comments:</b> the minister declined to ..." labels a sentence, not a thread.
              Self.headingTags.contains(heading) || !isInsideSentence(heading) else { return }
        // A title alone in its wrapper (`<div class="form"><h2>Comments</h2></div>`) heads what
        // follows the wrapper.
        var title = heading
        for _ in 0..<Self.threadTitleWrapperLevels {
            guard let parent = title.parent, parent.tag != "body", parent.parent != nil,
                  parent.innerTextLength == length else { break }
            title = parent
        }
        var node: DNode? = title
        while let current = node {
            current.followsThreadTitle = true
            current.forEachDescendant { $0.followsThreadTitle = true; return true }
            node = current.next
        }
    }

    static let threadTitleWrapperLevels = 3

    /// Removes the marked threads from the extracted article, unless the article starts inside
    /// one or is left without a paragraph's worth of text: then the thread was taken for the
    /// article (or a title stood above it), which is not to be turned into an empty page.
    func removeMarkedThreads(_ content: DNode) {
        guard hasThreadMarks else { return }
        // The outermost marked nodes: Readability's preparation wraps marked runs in new,
        // unmarked paragraphs, so a marked node's parent says nothing; its subtree is skipped.
        var marked: [DNode] = []
        var startsMarked: Bool?
        var node = content.following(within: content)
        while let current = node {
            if startsMarked == nil, current.kind == .text, !current.hasNoText { startsMarked = current.followsThreadTitle }
            if current.followsThreadTitle {
                marked.append(current)
                node = current.following(within: content, skipChildren: true)
            } else {
                node = current.following(within: content)
            }
        }
        guard !marked.isEmpty, startsMarked == false else { return }
        let markedLength = marked.reduce(0) { $0 + $1.innerTextLength }
        guard content.innerTextLength - markedLength >= Self.paragraphLength else { return }
        for node in marked { node.remove() }
    }
}
