/// Consent walls: a publisher in the EU answers a client without cookies with a page of its
/// consent manager ("We value your privacy ... Accept all") instead of the article. Readability
/// extracts that notice as well as it extracts an article, and it was stored as the article's
/// text. A notice speaks to the reader in the first and second person about partners, consent
/// and preferences, in phrases news copy does not use: a short text with "cookie" and two of
/// them holds a notice. Its blocks are removed; when what remains is too short to be an article
/// (a consent wall), the page has none, and the row keeps its feed text.
extension Extractor {
    /// Letters-only, lower-case phrases (digits dropped: "our 142 partners"), none inside another.
    static let consentPhrases = [
        "our partners", "your consent", "your preferences", "your personal data", "your device",
        "nuestros socios", "tu consentimiento", "su consentimiento", "tus preferencias", "sus preferencias",
        "sus datos personales", "tus datos personales", "nossos parceiros", "seu consentimento",
        "suas preferências", "suas preferencias", "seus dados pessoais",
    ]
    /// A notice is a few paragraphs; an article about consent rules that quotes one is longer.
    static let consentNoticeMaximumWords = 400
    static let consentBlockTags: Set<String> = ["p", "li", "blockquote", "div", "h2", "h3", "h4", "h5", "h6"]
    static let blockContainerTags: Set<String> = ["p", "div", "li", "ul", "ol", "section", "article", "table", "blockquote"]

    static func isConsentNotice(_ text: String) -> Bool {
        // Longer than any 400 words: an article, not looked at further (it runs on every page).
        guard text.utf8.count <= consentNoticeMaximumWords * 40, let letters = lettersOnly(text, maximumWords: consentNoticeMaximumWords), letters.contains("cookie") else {
            return false
        }
        return consentPhrases.filter { letters.contains(" \($0) ") }.count >= 2
    }

    /// The content without the notice's blocks (those naming cookies or using a notice's phrase,
    /// with a short heading right before them); nil when too little is left for an article.
    func withoutConsentNotice(_ content: DNode, serializer: ArticleSerializer) -> ArticleSerializer.Output? {
        let blocks = content.elements(Array(Self.consentBlockTags)).filter { block in
            // Innermost blocks only: a wrapper of the whole article also "names cookies".
            !(block.tag == "div" && block.hasDescendant { Self.blockContainerTags.contains($0.tag) })
        }
        for block in blocks where block.parent != nil && Self.speaksOfConsent(block.textContent) {
            removeShortHeading(before: block)
            block.remove()
        }
        let output = serializer.serialize(content)
        return output.text.count >= options.charThreshold ? output : nil
    }

    static func speaksOfConsent(_ text: String) -> Bool {
        guard let letters = lettersOnly(text, maximumWords: .max) else { return false }
        return letters.contains("cookie") || consentPhrases.contains { letters.contains(" \($0) ") }
    }

    /// " word word ... ": lower-case letters, one space between words, digits dropped; nil past
    /// `maximumWords`.
    static func lettersOnly(_ text: String, maximumWords: Int) -> String? {
        var letters = " "
        var words = 0
        var inWord = false
        for scalar in text.lowercased().unicodeScalars {
            if scalar.properties.isAlphabetic {
                if !inWord {
                    words += 1
                    if words > maximumWords { return nil }
                    inWord = true
                }
                letters.unicodeScalars.append(scalar)
            } else if scalar.properties.numericType != nil {
                continue   // "our 142 partners" reads as "our partners"
            } else if inWord {
                letters += " "
                inWord = false
            }
        }
        if inWord { letters += " " }
        return letters
    }
}
