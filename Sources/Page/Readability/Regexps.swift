import PulseModel
import TextSupport

/// Readability.js's REGEXPS as hand-written keyword matchers: every one of them is a
/// case-insensitive alternation of literal words, which `contains` checks on a lower-cased
/// string answer several times faster than a regex engine on the hot path (each element's
/// "class id" string is tested against several of them).
enum Regexps {
    /// One pass over the text for all the words: at each position only the words that start with
    /// its byte are compared. Searching word by word (a pass and two array retains per word) was
    /// ~3% of an extraction's CPU, as every element's "class id" string meets several lists.
    struct Keywords: Sendable {
        /// The words' bytes end to end; word `w` is `bytes[starts[w]..<starts[w + 1]]`.
        private let bytes: [UInt8]
        private let starts: [Int]
        /// Word numbers grouped by first byte: those starting with byte `b` are
        /// `byFirstByte[groupStarts[b]..<groupStarts[b + 1]]`.
        private let byFirstByte: [Int]
        private let groupStarts: [Int]
        private let hasEmptyWord: Bool

        init(_ words: [String]) {
            let encoded = words.map { Array($0.utf8) }
            bytes = encoded.flatMap { $0 }
            starts = encoded.reduce(into: [0]) { $0.append($0.last! + $1.count) }
            hasEmptyWord = encoded.contains { $0.isEmpty }
            let nonEmpty = encoded.indices.filter { !encoded[$0].isEmpty }
            byFirstByte = nonEmpty.sorted { (encoded[$0][0], $0) < (encoded[$1][0], $1) }
            var groups = [Int](repeating: 0, count: 257)
            for word in nonEmpty { groups[Int(encoded[word][0]) + 1] += 1 }
            for index in 1...256 { groups[index] += groups[index - 1] }
            groupStarts = groups
        }

        /// Whether any word occurs in `lowered` (already lower-cased UTF-8).
        func matches(_ lowered: [UInt8]) -> Bool {
            lowered.withUnsafeBufferPointer(matches)
        }

        /// Whether any word occurs in `haystack`, byte for byte. Inlined into both callers, as the
        /// array form was before it existed (every element's class meets several lists).
        @inline(__always)
        func matches(_ haystack: UnsafeBufferPointer<UInt8>) -> Bool {
            guard !haystack.isEmpty else { return false }
            if hasEmptyWord { return true }
            return bytes.withUnsafeBufferPointer { bytes in
                starts.withUnsafeBufferPointer { starts in
                    byFirstByte.withUnsafeBufferPointer { byFirstByte in
                        groupStarts.withUnsafeBufferPointer { groupStarts in
                            Self.search(haystack, bytes, starts, byFirstByte, groupStarts)
                        }
                    }
                }
            }
        }

        private static func search(_ haystack: UnsafeBufferPointer<UInt8>, _ bytes: UnsafeBufferPointer<UInt8>,
                                   _ starts: UnsafeBufferPointer<Int>, _ byFirstByte: UnsafeBufferPointer<Int>,
                                   _ groupStarts: UnsafeBufferPointer<Int>) -> Bool {
            let count = haystack.count
            for position in 0..<count {
                let first = Int(haystack[position])
                var candidate = groupStarts[first]
                let end = groupStarts[first + 1]
                while candidate < end {
                    let word = byFirstByte[candidate]
                    candidate += 1
                    let from = starts[word], length = starts[word + 1] - from
                    guard length <= count - position else { continue }
                    var offset = 1
                    while offset < length, haystack[position + offset] == bytes[from + offset] { offset += 1 }
                    if offset == length { return true }
                }
            }
            return false
        }

        func matches(_ text: String) -> Bool { matches(Array(text.lowercased().utf8)) }

        /// The most bytes compared at one position of the text: all the words that share the
        /// commonest first byte, each compared whole. A text of n bytes costs at most n times this,
        /// whatever its shape (a class attribute can be megabytes).
        var comparisonsPerPosition: Int {
            (0..<256).map { first in
                byFirstByte[groupStarts[first]..<groupStarts[first + 1]].reduce(0) { $0 + starts[$1 + 1] - starts[$1] }
            }.max() ?? 0
        }

        /// The words, in the order given.
        var allWords: [String] {
            starts.indices.dropLast().map { String(decoding: bytes[starts[$0]..<starts[$0 + 1]], as: UTF8.self) }
        }
    }

    static let unlikelyCandidates = Keywords([
        "-ad-", "ai2html", "banner", "breadcrumbs", "combx", "comment", "community", "cover-wrap", "disqus",
        "extra", "footer", "gdpr", "header", "legends", "menu", "related", "remark", "replies", "rss",
        "shoutbox", "sidebar", "skyscraper", "social", "sponsor", "supplemental", "ad-break", "agegate",
        "pagination", "pager", "popup", "yom-remote",
    ])
    static let okMaybeItsACandidate = Keywords(["and", "article", "body", "column", "content", "main", "shadow"])
    static let positive = Keywords([
        "article", "body", "content", "entry", "hentry", "h-entry", "main", "page", "pagination", "post",
        "text", "blog", "story",
    ])
    private static let negativeWords = Keywords([
        "-ad-", "hidden", "banner", "combx", "comment", "com-", "contact", "foot", "footer", "footnote",
        "gdpr", "masthead", "media", "meta", "outbrain", "promo", "related", "scroll", "share", "shoutbox",
        "sidebar", "skyscraper", "sponsor", "shopping", "tags", "widget",
    ])
    static let byline = Keywords(["byline", "author", "dateline", "writtenby", "p-author"])
    static let videoHosts = Keywords([
        "//www.dailymotion.com", "//dailymotion.com", "//www.youtube.com", "//youtube.com",
        "//www.youtube-nocookie.com", "//youtube-nocookie.com", "//player.vimeo.com", "//www.player.vimeo.com",
        "//v.qq.com", "//www.v.qq.com", "//archive.org", "//www.archive.org", "//upload.wikimedia.org",
        "//player.twitch.tv", "//www.player.twitch.tv",
    ])

    /// `negative` also has `^hid$| hid$| hid |^hid `: "hid" as a whole space-separated word.
    static func isNegative(_ lowered: [UInt8]) -> Bool {
        if negativeWords.matches(lowered) { return true }
        return lowered.split(separator: 0x20).contains { $0.elementsEqual("hid".utf8) }
    }

    /// `shareElements: /(\b|_)(share|sharedaddy)(\b|_)/i`.
    static func isShareElement(_ lowered: [UInt8]) -> Bool {
        let word = Array("share".utf8)
        guard lowered.count >= word.count else { return false }
        func isWordByte(_ byte: UInt8) -> Bool {
            (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x5F || byte >= 0x80
        }
        for start in 0...(lowered.count - word.count) where lowered[start..<(start + word.count)].elementsEqual(word) {
            let before = start == 0 ? nil : lowered[start - 1]
            let leftOK = before == nil || !isWordByte(before!) || before == 0x5F
            guard leftOK else { continue }
            var end = start + word.count
            if lowered[end...].starts(with: "daddy".utf8) { end += 5 }
            let after = end < lowered.count ? lowered[end] : nil
            if after == nil || !isWordByte(after!) || after == 0x5F { return true }
        }
        return false
    }

    /// `adWords` / `loadingWords`: the whole text is one of these words.
    static func isAdOrLoadingText(_ text: String) -> Bool {
        let lower = text.lowercased()
        let ad = ["ad", "advertising", "advertisement", "pub", "publicité", "werb", "werbung", "广告", "реклама", "anuncio"]
        if ad.contains(lower) { return true }
        for word in ["loading", "正在加载", "загрузка", "chargement", "cargando"] {
            if lower == word || lower == word + "…" || lower == word + "..." { return true }
        }
        return false
    }

    /// `/\.( |$)/` — a sentence end.
    static func hasSentenceEnd(_ text: String) -> Bool {
        text.hasSuffix(".") || TextScan.contains(text, ". ")
    }

    /// `/\.(jpg|jpeg|png|webp)/i`.
    static func hasImageExtension(_ value: String) -> Bool {
        let lower = value.lowercased()
        return [".jpg", ".jpeg", ".png", ".webp"].contains { TextScan.contains(lower, $0) }
    }
}

extension DNode {
    /// `className + " " + id`, lower-cased as UTF-8 bytes for the keyword matchers. Written
    /// straight into one buffer: joining the two Strings and appending the join's bytes one by one
    /// through String.UTF8View cost ~500 instructions a node, on every node of every pass.
    var matchBytes: [UInt8] {
        if let cachedMatchBytes { return cachedMatchBytes }
        let bytes = makeMatchBytes()
        cachedMatchBytes = bytes
        return bytes
    }

    private func makeMatchBytes() -> [UInt8] {
        var classText: String?
        var idText: String?
        for attribute in attributes {
            if classText == nil, attribute.name == "class" { classText = attribute.value }
            else if idText == nil, attribute.name == "id" { idText = attribute.value }
        }
        guard classText != nil || idText != nil else { return [0x20] } // " ": what "" + " " + "" lowers to
        let className = classText.map(Self.withoutTaxonomy) ?? "", id = idText ?? ""
        var bytes: [UInt8] = []
        bytes.reserveCapacity(className.utf8.count + 1 + id.utf8.count)
        var isASCII = Self.appendLowered(className, to: &bytes)
        bytes.append(0x20)
        isASCII = Self.appendLowered(id, to: &bytes) && isASCII
        // Non-ASCII class names are rare; lower-case them properly when present.
        return isASCII ? bytes : Array((className + " " + id).lowercased().utf8)
    }

    /// A post's class list without the names its engine makes from the post's categories, tags and
    /// author ("category-social-media", "tag-comments", TypePad's "entry-category-..."): those
    /// are the writer's words, and "social" or "comment" in them read as page furniture, so a
    /// post filed under "Social media" went as a share bar. Only a list that holds a category
    /// name is rewritten (a "tag-list" box of its own keeps its name).
    static func withoutTaxonomy(_ className: String) -> String {
        guard TextScan.contains(className, "category-") || TextScan.contains(className, "Category-") else { return className }
        let tokens = className.split(whereSeparator: \.isWhitespace).map { ($0, $0.lowercased()) }
        guard tokens.contains(where: { $0.1.hasPrefix("category-") || $0.1.hasPrefix("entry-category-") }) else { return className }
        return tokens.filter { token in !taxonomyPrefixes.contains { token.1.hasPrefix($0) } }.map { String($0.0) }.joined(separator: " ")
    }

    static let taxonomyPrefixes = ["category-", "entry-category-", "tag-", "entry-tag-", "entry-author-"]

    /// Appends `text`'s bytes with ASCII letters lower-cased; false when it holds non-ASCII. A
    /// static function with `inout`, not a closure over locals: captured variables are boxed and
    /// every byte's append checked their exclusive access at run time.
    private static func appendLowered(_ text: String, to bytes: inout [UInt8]) -> Bool {
        TextScan.withBytes(text) { source in
            var isASCII = true
            for byte in source {
                if byte >= 0x80 { isASCII = false }
                bytes.append(TextScan.lowercasedASCII(byte))
            }
            return isASCII
        }
    }
}

/// `prefixes.contains(where: text.hasPrefix)`, with the bytes compared first: `hasPrefix` compares
/// Characters and cost ~130 instructions a call, and the boilerplate rules try dozens of
/// prefixes on every short block. A text can only start with one of these Characters if it starts
/// with its bytes (none of them has another canonical spelling), so `hasPrefix` runs only on a
/// byte match, to keep its answer where a combining mark follows the prefix.
struct LiteralPrefixes: Sendable {
    private let prefixes: [(text: String, bytes: [UInt8])]

    init(_ prefixes: [String]) {
        self.prefixes = prefixes.map { ($0, Array($0.utf8)) }
    }

    func matchStart(of text: String) -> Bool {
        TextScan.withBytes(text) { bytes in
            prefixes.contains { bytes.starts(with: $0.bytes) && text.hasPrefix($0.text) }
        }
    }
}
