import OpenGraph

/// Pages that render the next story below the article ("Up next", infinite scroll): the two
/// stories are sibling `<article>` elements, Readability's sibling merge joins them (the second
/// scores like the first), and both were stored as one article's text. The page's own story is
/// the `<article>` its title heading stood in; beside it, at most two other `<article>`s, each
/// with a headline (`h1`/`h2`) of its own and at least three paragraphs, are other stories.
/// Live-blog entries are `<article>`s too, but they sit inside the titled one, or come many.
extension Extractor {
    /// Below this (Readability's own measure, either way round) a heading names another story.
    static let otherHeadlineSimilarity = 0.5
    static let otherStoryMinimumParagraphs = 3
    /// More `<article>`s than this side by side are entries of one page (a live blog, a list).
    static let maximumStoriesSideBySide = 3

    func removeOtherStories(_ content: DNode) {
        guard let titleStory, !articleTitle.isEmpty,
              let stories = outermostArticles(in: content, atMost: Self.maximumStoriesSideBySide),
              stories.count >= 2,
              stories.contains(where: { $0 === titleStory }) else { return }
        for story in stories where story !== titleStory {
            guard let heading = story.firstElement(where: { $0.tag == "h1" || $0.tag == "h2" }) else { continue }
            let headline = TextCleaning.clean(heading.textContent)
            let similarity = max(TextSimilarity.similarity(articleTitle, headline), TextSimilarity.similarity(headline, articleTitle))
            if similarity < Self.otherHeadlineSimilarity, story.countElements("p") >= Self.otherStoryMinimumParagraphs {
                story.remove()
            }
        }
    }

    /// The `<article>`s of `content` not inside another one, or nil past `limit`. One walk that
    /// skips each article's inside and stops at the first one too many: linear, however the
    /// page nests or repeats them.
    func outermostArticles(in content: DNode, atMost limit: Int) -> [DNode]? {
        var found: [DNode] = []
        var cursor = content.following(within: content)
        while let node = cursor {
            let isArticle = node.isElement && node.tag == "article"
            if isArticle {
                found.append(node)
                if found.count > limit { return nil }
            }
            cursor = node.following(within: content, skipChildren: isArticle)
        }
        return found
    }
}
