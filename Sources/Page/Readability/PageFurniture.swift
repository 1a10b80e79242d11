import FoundationEssentials
import OpenGraph
import PulseModel
import TextSupport

/// Precision rules run after the grab, for furniture that sits inside the article container and
/// carries no tell-tale class name: header lines (bylines, datelines, "Updated ..." and disclosure
/// lines), gallery chrome and captions, pull quotes, stock-quote widgets, the page's own URL
/// printed as text, and trailing blocks (author contact lines, comment notices, "About X"
/// boilerplate). Each rule only looks at short blocks; a paragraph of article text is never that
/// short and furniture-shaped at once in our fixtures (Tests/ReadabilityTests/Fixtures/pages).
extension Extractor {
    /// Blocks at least this long (UTF-8 bytes) are paragraphs, never furniture or notice lines.
    static let furnitureLineLimit = 300
    /// Lines shorter than this may be bylines or datelines (before the first paragraph this long,
    /// which starts the article text proper), slide captions repeated, or contact lines ("Contact
    /// her at ...", "Follow us on Twitter."). A longer block naming an address or "write to me"
    /// is a paragraph: a letter's sentence, a call for donations with the address to send them to,
    /// a reporter's two-line biography.
    static let shortLineLimit = 120
    /// How far from the end (in characters of text) trailing furniture is looked for.
    static let trailingWindow = 1_200

    /// Lines that announce, not report. Matched on the lowercased start of short blocks anywhere.
    static let furnitureLinePrefixes = [
        "transparency note:", "this article contains affiliate links",
        "this post contains affiliate links", "we may earn a commission", "we may earn commission",
        "post a comment", "leave a comment", "add a comment", "comments are moderated", "comments are closed",
        "join the conversation", "please read our community guidelines", "view comments", "show comments",
    ]
    static let furnitureLines = LiteralPrefixes(furnitureLinePrefixes)
    /// A post's filing line: "Tags: ...", "Categories: ...", "Posted in: News | 3 comments",
    /// "Filed under ...", "This entry was posted on ... and is filed under ...", the blog engines'
    /// footer of every post. The labelled forms ("Tags:") go anywhere; the sentence forms only in
    /// the trailing window, as an article sentence may start "Posted in ...".
    static func isTaxonomyLine(_ lowered: String, trailing: Bool) -> Bool {
        // Past leading punctuation ("| Tags: ..."), on the bytes while they are ASCII non-letters.
        let skipped = lowered.utf8.prefix { $0 < 0x80 && $0 &- 0x61 >= 26 }.count
        let start = skipped == 0 ? lowered : String(lowered.utf8.dropFirst(skipped))!
        return taxonomyLabels.matchStart(of: start) || (trailing && taxonomySentences.matchStart(of: start))
    }

    static let taxonomyLabels = LiteralPrefixes([
        "tags:", "tag:", "tagged:", "tagged as:", "tagged with:", "categories:", "category:", "filed under:", "posted in:",
        "labels:", "etiquetas:", "categorías:", "categorias:", "categoría:", "categoria:", "archivado en:",
        "schlagwörter:", "kategorien:", "kategorie:", "catégories:", "catégorie:", "mots-clés:",
    ])
    static let taxonomySentences = LiteralPrefixes([
        "this entry was posted", "this entry was filed", "you can follow any responses", "bookmark the permalink",
        "filed under ", "posted in ", "tagged ", "posted at ", "trackback url", "listed below are links to weblogs",
        "a version of this article appeared in print",
    ])

    /// "Sign up for our e-newsletter ...", "Join 10,000 readers: subscribe to the free newsletter":
    /// a short line naming the newsletter after the article is its sign-up box. (Inside the article
    /// such a line may be a source the article is about; only the trailing ones go.)
    static func isNewsletterLine(_ lowered: String) -> Bool {
        newsletterWords.contains { TextScan.contains(lowered, $0) }
    }

    static let newsletterWords = ["newsletter", "boletín", "boletim informativo"]

    /// Head-only prefixes: dates and bylines, which article sentences can also start with, and
    /// the publisher's disclosure set above the text with them. An author's disclosure after the
    /// text ("Disclosure: I serve on the board of ...") is written for this article, and readers
    /// keep it with the text (the labelled development pages do); the affiliate-link notices, the
    /// same on every page, still go anywhere (`furnitureLinePrefixes`).
    static let headLinePrefixes = [
        "by ", "updated", "published", "posted", "last updated", "last modified", "first published", "disclosure:", "disclaimer:",
        "aktualisiert:", "veröffentlicht:", "actualizado:", "publicado:", "mis à jour", "publié le", "aktualizacja:",
    ]
    static let headLines = LiteralPrefixes(headLinePrefixes)
    /// Gallery controls standing alone.
    static let galleryControls: Set<String> = [
        "close", "next", "previous", "prev", "expand", "enlarge", "fullscreen", "full screen", "open gallery",
        "view gallery", "show caption", "hide caption", "view image", "zoom",
    ]
    static let monthNames = [
        "january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
        "november", "december", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
    ]

    static let furnitureBlockTags = TagSet(["p", "li", "div", "h2", "h3", "h4", "h5", "h6", "blockquote", "figcaption", "span"])
    static let pullQuoteTags = TagSet(["h2", "h3", "h4", "h5", "h6", "blockquote", "aside"])
    static let aboutBlockTags = TagSet(["p", "h2", "h3", "h4", "h5", "h6"])

    func removePageFurniture(_ content: DNode) {
        var blocks = content.elements(Self.furnitureBlockTags)
        removeHeadLines(blocks)
        blocks = blocks.filter { $0.parent != nil }
        let texts = blocks.map { $0.firstElementChild == nil || $0.tag == "p" ? $0.innerText : "" }
        // Contact lines are only looked for near the end, where author notes sit: "contact them at"
        // is also an ordinary phrase in a report.
        let window = min(Self.trailingWindow, texts.reduce(0) { $0 + $1.utf8.count } / 4)
        var tailStart = blocks.count
        var tailLength = 0
        // A post's filing lines are looked for in the block that crosses the window too: on a short
        // post that line alone can.
        var filingStart = blocks.count
        for index in blocks.indices.reversed() {
            filingStart = index
            tailLength += texts[index].utf8.count
            if tailLength > window { break }
            tailStart = index
        }
        // Keyed by the fingerprint of `TextKey.words(lowered)` (TextKey.keyFingerprint): building each
        // key String and hashing it again for the dictionary was a tenth of this pass. A collision
        // between two different short lines (about n^2 / 2^65 for n lines) would remove the second.
        var seen: [UInt64: Int] = [:]
        seen.reserveCapacity(blocks.count)
        for (index, block) in blocks.enumerated() where block.parent != nil {
            let text = texts[index]
            guard !text.isEmpty, text.utf8.count < Self.furnitureLineLimit else { continue }
            let lowered = text.lowercased()
            let key = TextKey.keyFingerprint(lowered)
            // The same short line twice (a caption repeated on every slide): keep the first only.
            // Longer blocks are left alone: a repeated paragraph is the page's choice, not chrome.
            // A line inside a block holding only it (`<p><b><font>Heading</font></b></p>`) is that
            // block's line, not a second one.
            if key.length >= 12, text.utf8.count < Self.shortLineLimit, let first = seen[key.hash], first != index,
               !blocks[first].isAncestor(of: block, within: content) {
                block.remove()
                continue
            }
            seen[key.hash] = index
            if Self.furnitureLines.matchStart(of: lowered) || Self.isTaxonomyLine(lowered, trailing: index >= filingStart)
                || (index >= filingStart && Self.isNewsletterLine(lowered))
                || Self.galleryControls.contains(lowered)
                || Self.isGalleryCounter(lowered) || Self.isCreditOrCaptionLine(text)
                || Self.isQuoteWidget(text) || isOwnURL(text) || (index >= tailStart && text.utf8.count < Self.shortLineLimit && Self.isContactLine(lowered)) {
                block.remove()
            }
        }
        removePullQuotes(content)
        removeTrailingAboutBlock(content)
    }

    /// Short lines before the first real paragraph: bylines, datelines, "Updated ..." lines.
    private func removeHeadLines(_ blocks: [DNode]) {
        for block in blocks where block.parent != nil {
            // Containers are skipped before their (possibly whole-article) text is built.
            guard block.tag == "p" || block.firstElementChild == nil else { continue }
            let text = block.innerText
            if block.tag == "p", text.utf8.count >= Self.shortLineLimit { return }
            guard !text.isEmpty, text.utf8.count < Self.shortLineLimit else { continue }
            let lowered = text.lowercased()
            if Self.headLines.matchStart(of: lowered) || Self.isDateLine(lowered) {
                block.remove()
            }
        }
    }

    /// "14 May 2024, 22:10", "May 14, 2024", "2024-05-14": a date and little else.
    static func isDateLine(_ lowered: String) -> Bool {
        // ASCII lines are split on their bytes (the same words: CR LF is one whitespace Character
        // or two whitespace bytes, and empty pieces are dropped either way).
        let words = TextScan.isASCII(lowered)
            ? lowered.utf8.split(whereSeparator: { $0 == 0x20 || ($0 >= 0x09 && $0 <= 0x0D) || $0 == 0x2C || $0 == 0x7C }).map { Substring($0) }
            : lowered.split(whereSeparator: { $0.isWhitespace || $0 == "," || $0 == "|" })
        guard words.count <= 8, lowered.contains(where: \.isNumber) else { return false }
        let hasMonth = words.contains { word in monthNames.contains(trimmingPunctuation(word)) }
        return hasMonth || containsISODate(lowered)
    }

    /// `trimmingCharacters(in: .punctuationCharacters)` (Unicode's P* categories) without
    /// Foundation's NSString round trip.
    static func trimmingPunctuation(_ word: Substring) -> String {
        let scalars = word.unicodeScalars
        guard let first = scalars.firstIndex(where: { !isPunctuation($0) }) else { return "" }
        let last = scalars.lastIndex(where: { !isPunctuation($0) })!
        return String(scalars[first...last])
    }

    static func isPunctuation(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation, .initialPunctuation,
             .finalPunctuation, .otherPunctuation: true
        default: false
        }
    }

    /// The regular expression `\b\d{4}-\d{2}-\d{2}\b` as ICU reads it (`\d` a decimal digit, `\w`
    /// alphabetic, mark, digit or connector), scanned by hand: compiling it on every short line
    /// through Foundation cost more than the rest of the furniture rules.
    static func containsISODate(_ text: String) -> Bool {
        // Two ASCII hyphens at least, or there is nothing to scan for (most lines have none;
        // the scan below asks Unicode properties of every scalar).
        guard TextScan.withBytes(text, { bytes in bytes.lazy.filter { $0 == 0x2D }.prefix(2).count == 2 }) else { return false }
        let scalars = Array(text.unicodeScalars)
        guard scalars.count >= 10 else { return false }
        func isDigit(_ index: Int) -> Bool { scalars[index].properties.generalCategory == .decimalNumber }
        func isWord(_ index: Int) -> Bool {
            let scalar = scalars[index]
            switch scalar.properties.generalCategory {
            case .decimalNumber, .connectorPunctuation, .nonspacingMark, .spacingMark, .enclosingMark: return true
            default: return scalar.properties.isAlphabetic || scalar.value == 0x200C || scalar.value == 0x200D
            }
        }
        for start in 0...(scalars.count - 10) {
            guard start == 0 || !isWord(start - 1) else { continue }
            guard [0, 1, 2, 3, 5, 6, 8, 9].allSatisfy({ isDigit(start + $0) }),
                  scalars[start + 4] == "-", scalars[start + 7] == "-" else { continue }
            if start + 10 == scalars.count || !isWord(start + 10) { return true }
        }
        return false
    }

    // Compiled once: `range(of:options: .regularExpression)` compiled (or looked up) the pattern on
    // every short line. nonisolated(unsafe): `Regex` has no Sendable conformance, but it is an
    // immutable value whose one piece of shared state, the program compiled on first use, is
    // published with an atomic compare-and-swap (swift-experimental-string-processing's
    // `Regex.Program`), so concurrent matching on one pattern is safe. The gallery-counter and
    // credit patterns, which ran on many more lines, are matched by hand (FurniturePatterns).
    nonisolated(unsafe) static let contactPattern = pattern(
        #"\b(?:contact|email|e-mail|reach|write to) (?:him|her|them|the author|me|us)\b|\bfollow (?:him|her|them|me|us) on\b|can be reached at|[a-z0-9._%+-]+@[a-z0-9-]+\.[a-z.]{2,}"#)

    /// Swift's `Regex`, matching as ICU's `NSRegularExpression` did here before: by Unicode scalar
    /// (not by grapheme cluster) and with simple word boundaries (`\b` between a word character
    /// and a non-word one). Groups do not capture, so the output is the match alone (`Substring`),
    /// which keeps the compiled patterns `Sendable`.
    private static func pattern(_ text: String) -> Regex<Substring> {
        do {
            return try Regex(text, as: Substring.self).matchingSemantics(.unicodeScalar).wordBoundaryKind(.simple)
        } catch {
            preconditionFailure("furniture pattern does not compile: \(error)")  // a constant: a build error in effect
        }
    }

    private static let galleryWords = ["image", "photo", "picture", "slide", "foto"].map { Array($0.utf8) }

    /// "Image 1 of 9", "Photo 3/12", "Slide 2 of 5".
    static func isGalleryCounter(_ lowered: String) -> Bool {
        // Cheap tests first: the regular expression runs on few blocks.
        // `lowered.count < 32`, without counting the Characters of a long block to the end.
        // The pattern is anchored on these words (imagem and imagen start with image): any short
        // line with a digit ran it before, a tenth of a short page's extraction.
        // The words are compared on the bytes, before the Characters are counted.
        guard TextScan.withBytes(lowered, { bytes in galleryWords.contains { bytes.starts(with: $0) } }),
              lowered.index(lowered.startIndex, offsetBy: 32, limitedBy: lowered.endIndex) == nil,
              lowered.contains(where: \.isNumber) else { return false }
        return FurniturePatterns.isGalleryCounter(lowered)
    }

    /// A photo credit standing alone ("Image: GETTY", "Photo: Elena Ruiz/Reuters") or ending a short
    /// caption ("Evacuees wait at the school gym. Image: GETTY").
    static func isCreditOrCaptionLine(_ text: String) -> Bool {
        guard text.utf8.count < 200, TextScan.containsByte(text, where: { $0 == 0x3A || $0 == 0x2F }) else { return false }
        return FurniturePatterns.endsWithCredit(text)
    }

    /// A ticker line: symbols, prices and signed changes only ("ACME 912.40 +2.3%").
    static func isQuoteWidget(_ text: String) -> Bool {
        // On the bytes first: comparing Characters ran on every short block. A sign that is only
        // the start of a longer Character (a combining mark after it) passes here, but then no
        // token starts or ends with that sign, so `sawChange` stays false as before.
        guard text.utf8.count < 120,
              TextScan.containsByte(text, where: { $0 == 0x25 || $0 == 0x2B || $0 == 0x2D }) || TextScan.contains(text, "−")
        else { return false }
        let tokens = text.split(whereSeparator: \.isWhitespace)
        guard (2...12).contains(tokens.count), text.count < 80 else { return false }
        var sawChange = false
        for token in tokens {
            let isSymbol = token.count <= 6 && token.allSatisfy { $0.isUppercase || $0 == "." || $0 == ":" }
            let number = TextScan.trimming(token) { "()+-−%$€£".contains($0) }
            let isNumber = !number.isEmpty && number.allSatisfy { $0.isNumber || $0 == "." || $0 == "," }
            if token.hasSuffix("%") || token.hasPrefix("+") || token.hasPrefix("-") || token.hasPrefix("−") { sawChange = true }
            guard isSymbol || isNumber else { return false }
        }
        return sawChange
    }

    /// The page's own address printed as text (a "copy link" box, a print footer).
    func isOwnURL(_ text: String) -> Bool {
        guard text.hasPrefix("http://") || text.hasPrefix("https://"), !text.contains(where: \.isWhitespace) else { return false }
        let trimmed = { (value: String) in value.hasSuffix("/") ? String(value.dropLast()) : value }
        return trimmed(text) == trimmed(url) || isSiteLink(text)
    }

    /// Author contact and follow lines: "Contact her at ...", "Follow him on ...", an email address.
    static func isContactLine(_ lowered: String) -> Bool {
        guard ["@", "contact", "follow", "reach", "write to", "email", "e-mail"].contains(where: { TextScan.contains(lowered, $0) })
        else { return false }
        return lowered.contains(contactPattern)
    }

    /// A heading or quote block whose words are a sentence of the body: a pull quote. Compared as
    /// `TextKey.words`: quotes, punctuation and case do not hide a repeat.
    private func removePullQuotes(_ content: DNode) {
        let candidates = content.elements(Self.pullQuoteTags).compactMap { candidate in
            let text = TextKey.words(candidate.innerText)
            return text.utf8.count >= Self.pullQuoteMinimumLength && text.split(separator: " ").count >= 5 ? (candidate, text) : nil
        }
        guard !candidates.isEmpty else { return }
        let paragraphNodes = content.elements("p")
        let paragraphs = paragraphNodes.map { TextKey.words($0.innerText) }
        // A quote set inside a paragraph (a `<blockquote>` in a `<span>` joined to the text around
        // it) is found in that paragraph's text as itself, not as a repeat.
        var paragraphIndex: [ObjectIdentifier: Int] = [:]
        for (index, node) in paragraphNodes.enumerated() { paragraphIndex[ObjectIdentifier(node)] = index }
        let holders = candidates.map { candidate in
            // A few levels up: the paragraph holding a quote wraps it in a span or two. Deeper
            // nesting is not looked through, so a page of nested quotes costs no more per quote.
            var held: Set<Int> = []
            var ancestor = candidate.0.parent
            for _ in 0..<Self.quoteHolderLevels {
                guard let current = ancestor, current !== content else { break }
                if let index = paragraphIndex[ObjectIdentifier(current)] { held.insert(index) }
                ancestor = current.parent
            }
            return held
        }
        let repeated = Self.repeatedInLongerParagraphs(candidates.map(\.1), paragraphs,
                                                       skipping: { holders[$0].contains($1) }).repeated
        for (index, (candidate, _)) in candidates.enumerated() where repeated.contains(index) && candidate.parent != nil {
            candidate.remove()
        }
    }

    static let quoteHolderLevels = 4
    /// Pull quotes repeat a sentence of the body; shorter repeats may be a subheading's words.
    static let pullQuoteMinimumLength = 30

    /// Paragraph bytes the pull-quote rule searches per page, in all. A real article (a few
    /// headings, tens of kilobytes of text) needs well under 1 MB; a page of thousands of headings
    /// and paragraphs would otherwise cost headings x paragraph text. Past it, headings stay.
    static let pullQuoteSearchBudget = 4 << 20

    /// The indexes of `candidates` found inside a longer paragraph, and the paragraph bytes searched.
    static func repeatedInLongerParagraphs(_ candidates: [String], _ paragraphs: [String],
                                           budget: Int = pullQuoteSearchBudget,
                                           skipping: (_ candidate: Int, _ paragraph: Int) -> Bool = { _, _ in false })
        -> (repeated: Set<Int>, searched: Int) {
        var repeated: Set<Int> = []
        var searched = 0
        for (index, text) in candidates.enumerated() {
            for (number, paragraph) in paragraphs.enumerated()
            where paragraph.utf8.count > text.utf8.count && !skipping(index, number) {
                searched += paragraph.utf8.count
                if searched > budget { return (repeated, searched - paragraph.utf8.count) }
                if TextScan.contains(paragraph, text) {
                    repeated.insert(index)
                    break
                }
            }
        }
        return (repeated, searched)
    }

    /// Press-release boilerplate at the end: "About Acme: Acme is ..." or an "About Acme" heading
    /// and what follows it.
    private func removeTrailingAboutBlock(_ content: DNode) {
        let blocks = content.elements(Self.aboutBlockTags)
        var tailLength = 0
        for block in blocks.reversed() where block.parent != nil {
            let text = block.innerText
            tailLength += text.utf8.count
            if tailLength > Self.trailingWindow { return }
            guard text.hasPrefix("About "), let first = text.dropFirst(6).first, first.isUppercase else { continue }
            let isHeading = block.tag != "p" && text.split(separator: " ").count <= 8
            let isLabelled = block.tag == "p" && text.prefix(80).contains(":")
            guard isHeading || isLabelled else { continue }
            var next = isHeading ? block.nextElementSibling : nil
            block.remove()
            while let current = next {
                next = current.nextElementSibling
                current.remove()
            }
            return
        }
    }
}
