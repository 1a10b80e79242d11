import PulseModel
import TextSupport

/// Consent walls: a publisher in the EU answers a client without cookies with a page of its
/// consent manager ("We value your privacy ... Accept all") instead of the article. Readability
/// extracts that notice as well as it extracts an article, and it was stored as the article's
/// text. A notice speaks to the reader in the first and second person about partners, consent
/// and preferences, in phrases news copy does not use: a short text with "cookie" and two of
/// them holds a notice. Its blocks are removed; when what remains is too short to be an article
/// (a consent wall), the page has none, and the row keeps its feed text.
extension Extractor {
    /// Letters-only, lower-case phrases (digits dropped: "our 142 partners"), none inside another,
    /// each with the spaces around it that `lettersOnly` text has around every word.
    static let consentPhrases = [
        "our partners", "your consent", "your preferences", "your personal data", "your device",
        "nuestros socios", "tu consentimiento", "su consentimiento", "tus preferencias", "sus preferencias",
        "sus datos personales", "tus datos personales", "nossos parceiros", "seu consentimento",
        "suas preferências", "suas preferencias", "seus dados pessoais",
    ].map { " \($0) " }
    /// A notice is a few paragraphs; an article about consent rules that quotes one is longer.
    static let consentNoticeMaximumWords = 400
    static let consentBlockTags = ["p", "li", "blockquote", "div", "h2", "h3", "h4", "h5", "h6"]
    static let blockContainerTags = ["p", "div", "li", "ul", "ol", "section", "article", "table", "blockquote"]

    static func isConsentNotice(_ text: String) -> Bool {
        // Longer than any 400 words, or never naming cookies: an article, looked at no further
        // (this runs on every page; the byte search is most of its cost then).
        guard text.utf8.count <= consentNoticeMaximumWords * 40, namesCookies(text),
              let letters = lettersOnly(text, maximumWords: consentNoticeMaximumWords) else {
            return false
        }
        return consentPhrases.filter { TextScan.contains(letters, $0) }.count >= 2
    }

    /// "cookie" in any case ("Cookie", "COOKIES").
    static func namesCookies(_ text: String) -> Bool {
        TextScan.contains(text, "ookie") || TextScan.contains(text, "OOKIE")
    }

    /// The content without the notice's innermost blocks that name cookies or use a notice's
    /// phrase (with a short heading right before them); nil when too little is left for an article.
    func withoutConsentNotice(_ content: DNode, serializer: ArticleSerializer) -> ArticleSerializer.Output? {
        // Innermost blocks only: a wrapper of the whole article also "names cookies", and reading
        // every nested block's text would read a deep list once per level. Every block marks its
        // ancestors up to the first one already marked, so each element is marked once, and the
        // innermost blocks' texts do not overlap (a test counts the steps on a deep list).
        var holdsBlock = Set<ObjectIdentifier>()
        for block in content.elements(Self.blockContainerTags) {
            var ancestor = block.parent
            while let current = ancestor, current !== content, holdsBlock.insert(ObjectIdentifier(current)).inserted {
                ancestor = current.parent
            }
        }
        let blocks = content.elements(Self.consentBlockTags).filter { !holdsBlock.contains(ObjectIdentifier($0)) }
        for block in blocks where block.parent != nil && Self.speaksOfConsent(block.textContent) {
            removeShortHeading(before: block)
            block.remove()
        }
        let output = serializer.serialize(content)
        return output.text.count >= options.charThreshold ? output : nil
    }

    static func speaksOfConsent(_ text: String) -> Bool {
        if namesCookies(text) { return true }
        guard let letters = lettersOnly(text, maximumWords: .max) else { return false }
        return consentPhrases.contains { TextScan.contains(letters, $0) }
    }

    /// " word word ... ": letters (ASCII ones lower-cased), one space between words, digits
    /// dropped; nil past `maximumWords`. On the UTF-8 bytes: Unicode properties of every scalar
    /// were a tenth of an extraction's CPU.
    static func lettersOnly(_ text: String, maximumWords: Int) -> String? {
        var letters: [UInt8] = [0x20]
        var words = 0
        var inWord = false
        let overflow: Bool = TextScan.withBytes(text) { bytes in
            var index = 0
            while index < bytes.count {
                let byte = bytes[index]
                var kind: UInt8 = 0   // 0 separator, 1 letter, 2 digit
                var next = index + 1
                if byte < 0x80 {
                    if (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) { kind = 1 }
                    else if byte >= 0x30 && byte <= 0x39 { kind = 2 }
                } else {
                    let decoded = TextScan.scalar(at: index, in: bytes)
                    next = decoded.next
                    if let scalar = Unicode.Scalar(decoded.value) {
                        kind = scalar.properties.isAlphabetic ? 1 : scalar.properties.numericType != nil ? 2 : 0
                    }
                }
                switch kind {
                case 1:
                    if !inWord {
                        words += 1
                        if words > maximumWords { return true }
                        inWord = true
                    }
                    if byte < 0x80 {
                        letters.append(byte | 0x20)   // ASCII letters to lower case
                    } else {
                        letters.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[index..<next]))
                    }
                case 2:
                    break   // "our 142 partners" reads as "our partners"
                default:
                    if inWord {
                        letters.append(0x20)
                        inWord = false
                    }
                }
                index = next
            }
            return false
        }
        if overflow { return nil }
        if inWord { letters.append(0x20) }
        return String(decoding: letters, as: UTF8.self)
    }
}
