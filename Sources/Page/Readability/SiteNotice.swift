import PulseModel
import TextSupport

/// Site notices as the body: a cookie banner ("This website uses cookies to improve your
/// experience ... Accept Read More"), a newsletter box, a login or subscription wall. Readability
/// scores such a block like any other, and when the article lost the choice (its container's class
/// read as unlikely, a retry judged it astray) the notice was stored as the article: 27 words in
/// place of 450-1,000. `ConsentNotice` knows the consent managers' long walls by their phrases;
/// this is the short notice of any kind, told by what it speaks of rather than by its markup.
///
/// A notice is short and dense with its subject: it names cookies (weighed double: articles
/// rarely do) and the reader's choices (accept, settings, privacy), or subscribing and logging in,
/// in the languages of the sources. Written by hand: no library we keep classifies boilerplate
/// text. The stems are matched at a word's start on `lettersOnly` text (lower-cased ASCII letters,
/// single spaces).
extension Extractor {
    /// Longer texts are articles, whatever they speak of: a banner, a login wall or a newsletter
    /// box is a sentence or three, and a news story about cookie rules (whose every sentence
    /// names cookies and consent) runs longer (ConsentNoticeTests, SiteNoticeTests).
    static let noticeMaximumWords = 60
    /// Stems for cookies, in the sources' languages ("cookie" serves most of them).
    static let noticeCookieStems = [" cookie", " ciasteczk", " témoin"]
    /// Stems for subscribing, logging in and registering: what a wall asks of the reader (with
    /// the cookies, `namesAWall`).
    static let wallTopicStems = [
        // subscribing
        " subscri", " newsletter", " sign up", " signup", " inbox", " email address", " e mail address",
        " abonn", " suscr", " assin", " abbon", " iscriv", " prenumer", " subskryp",
        // logging in
        " log in", " login", " sign in", " register", " anmeld", " einlogg", " registr", " connectez", " connexion",
        " zaloguj", " logowa", " iniciar sesi", " inicia sesi", " accedi", " inloggen", " already a subscriber",
    ]
    /// Stems for the reader's choices, privacy, subscribing and logging in.
    static let noticeTopicStems = [
        // consent, privacy and settings
        " consent", " privacy", " accept", " agree", " opt out", " opt in", " personal data", " your experience",
        " preferences", " settings", " tracking", " partners",
        " datenschutz", " einwillig", " zustimm", " akzeptier", " einverstanden", " einstellungen", " personenbezogen",
        " confidentialit", " données personnelles", " paramètres", " partenaires",
        " privacidad", " consentimiento", " acept", " configuraci", " datos personales", " socios",
        " privacidade", " consentimento", " aceit", " dados pessoais", " parceiros",
        " riservatezza", " consenso", " accett", " impostazioni", " dati personali",
        " toestemming", " akkoord", " accepteer", " instellingen",
        " prywatno", " zgod", " akceptuj", " ustawieni", " dane osobowe", " partner",
        // comment forms
        " netiquette", " kommentier", " browser", " javascript", " veraltet", " out of date", " outdated", " leave a comment", " post a comment", " commentaire", " comentar", " komentarz",
    ] + wallTopicStems

    /// Whether `text` reads as a site notice: at most `noticeMaximumWords` words, and at least
    /// 2 + (words + 20) / 40 points of notice subject (a cookie stem 2, each other stem 1 a time it
    /// is used, at most 2), so a 27-word cookie banner needs one more sign ("accept"), a 60-word
    /// text four.
    static func isSiteNotice(_ text: String) -> Bool {
        guard text.utf8.count <= noticeMaximumWords * 30,
              let letters = lettersOnly(text, maximumWords: noticeMaximumWords) else { return false }
        let words = TextScan.withBytes(letters) { bytes in bytes.reduce(0) { $0 + ($1 == 0x20 ? 1 : 0) } } - 1
        guard words > 0 else { return false }
        var points = noticeCookieStems.contains { TextScan.contains(letters, $0) } ? 2 : 0
        for stem in noticeTopicStems { points += min(2, occurrences(of: stem, in: letters)) }
        return points >= 2 + (words + 20) / 40
    }

    /// How often `stem` occurs in `letters`, counted to 2. A plain byte comparison at each place:
    /// both are short (a notice is at most `noticeMaximumWords` words).
    static func occurrences(of stem: String, in letters: String) -> Int {
        TextScan.withBytes(letters) { haystack in
            TextScan.withBytes(stem) { needle in
                var count = 0
                var index = 0
                while count < 2, index + needle.count <= haystack.count {
                    var offset = 0
                    while offset < needle.count, haystack[index + offset] == needle[offset] { offset += 1 }
                    if offset == needle.count {
                        count += 1
                        index += needle.count
                    } else {
                        index += 1
                    }
                }
                return count
            }
        }
    }

    /// Whether an attempt's content is a site notice (read only when short enough to be one).
    func readsAsNotice(_ content: DNode, length: Int) -> Bool {
        length <= Self.noticeMaximumWords * 12 && Self.isSiteNotice(content.innerText)
    }

    /// The body chosen again without the notice: the elements the notice came from (the chosen
    /// content's own blocks, each holding little of the page's text, so the block with most of the
    /// article's words never goes) are dropped and the grab runs afresh; when what it then finds is
    /// a notice too, or nothing, the block the publisher marked as the body (`markedArticleBody`)
    /// is the second opinion. nil when neither gives an article. `content` is from this tree.
    func regrabWithoutNotice(_ content: DNode) -> DNode? {
        for block in content.children where block.isElement && block.sourceIndex >= 0 {
            noticeElements.insert(block.sourceIndex)
        }
        flags = [.stripUnlikelys, .weightClasses, .cleanConditionally]
        attempts = []
        namedArticle = nil
        if preparedBody() != nil, let grabbed = grabArticle(), !arena.meter.exhausted {
            removeBoilerplateAfterGrab(grabbed)
            simplifyNestedElements(grabbed)
            if isArticleText(grabbed) { return grabbed }
        }
        guard let marked = markedArticleBody(), isArticleText(marked) else { return nil }
        return marked
    }

    /// A paragraph's worth of text that is not a notice.
    private func isArticleText(_ content: DNode) -> Bool {
        let text = content.innerText
        return text.utf8.count >= Self.paragraphLength && !Self.isSiteNotice(text)
    }

    /// The element the publisher marked as the article's body (microdata `itemprop="articleBody"`),
    /// else the page's only `<article>`, from a fresh tree and cleaned as a grab's content is; nil
    /// when the page marks none. Readability's scores can miss it (its class reads as unlikely:
    /// "commentary" holds "comment"), while the markup says plainly where the text is. Looked for
    /// before the boilerplate steps, which judge blocks by class name and share of the page too.
    /// `element`: the `sourceIndex` of the block to take (`secondOpinion`'s), instead.
    func markedArticleBody(element: Int32? = nil) -> DNode? {
        root = arena.build(from: document)
        unwrapNoscriptImages()
        removeScripts()
        prepDocument()
        guard let body else { return nil }
        var marked: DNode?
        var articles: [DNode] = []
        var node = body.firstElementChild
        while let current = node, marked == nil {
            if let element {
                if current.sourceIndex == element { marked = current }
            } else if Self.marksArticleBody(current) {
                marked = current
            } else if current.tag == "article" {
                articles.append(current)
            }
            node = nextElementInOrder(current)
        }
        guard let chosen = marked ?? (articles.count == 1 ? articles[0] : nil) else { return nil }
        let content = arena.element("div")
        chosen.remove()
        content.appendChild(chosen)
        prepArticle(content)
        removeBoilerplateAfterGrab(content)
        simplifyNestedElements(content)
        return arena.meter.exhausted ? nil : content
    }

    /// Drops the elements `regrabWithoutNotice` named from a freshly built tree, each only while
    /// it holds little of the page's text.
    func removeNoticeElements(_ body: DNode) {
        guard !noticeElements.isEmpty else { return }
        let page = PageText(of: body, extractor: self)
        var node = body.firstElementChild
        while let current = node {
            if noticeElements.contains(current.sourceIndex), page.holdsLittle(current, extractor: self, divisor: 2) {
                node = removeAndGetNext(current)
            } else {
                node = nextElementInOrder(current)
            }
        }
    }
}
