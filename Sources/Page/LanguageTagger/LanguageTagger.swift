import CCLD2
import PulseModel
import TextSupport

/// Per-article language for `articles.language`: CLD2 on the article's own text, falling back to
/// the source's configured language whenever the detection cannot be trusted.
public enum LanguageTagger {
    /// Caps on what is handed to CLD2. Title and summary are short by contract; the body only
    /// confirms them, and CLD2 gains nothing past a few KB.
    public static let titleByteCap = 2_048
    public static let summaryByteCap = 4_096
    public static let bodyByteCap = 4_096
    /// Upper bound for `detect` on arbitrary text (the three caps plus separators).
    public static let detectByteCap = titleByteCap + summaryByteCap + bodyByteCap + 2

    /// Detects the language of plain text. Never uses hints: CLD2 scores es/pt/gl as one close
    /// set, and a hint for one member makes it answer that member for the others.
    public static func detect(_ text: String) -> LanguageDetection {
        detect(bytes: cld2Bytes(text, maxBytes: detectByteCap))
    }

    /// The language to store for one article. Uses all the text there is: title, summary and the
    /// start of the body, with repeated sentences removed first (a summary that repeats the title
    /// or a body that starts with the summary would otherwise weigh twice).
    public static func decide(
        title: String, summary: String?, body: String?, configured: String, detectionEnabled: Bool
    ) -> LanguageDecision {
        let fallback = configuredCode(configured)
        guard detectionEnabled else {
            return LanguageDecision(code: fallback, source: .configured(reason: .disabled), detected: nil, disagrees: false)
        }
        let detection = detect(bytes: detectionBytes(title: title, summary: summary, body: body))
        func keep(_ reason: LanguageDecision.FallbackReason) -> LanguageDecision {
            LanguageDecision(code: fallback, source: .configured(reason: reason), detected: detection, disagrees: false)
        }
        if ISO639.isAbstention(detection.rawCode) { return keep(.abstained) }
        if !detection.reliable { return keep(.unreliable) }
        guard let code = detection.code else { return keep(.notTwoLetter) }
        return LanguageDecision(code: code, source: .detected, detected: detection, disagrees: code != fallback)
    }

    /// The language of one row, decided once, when its page's text (or its absence) is known.
    /// The fullest text first: the row's title and summary with the page's body when a page was
    /// read (its title and excerpt standing in for a missing title or summary); when that gives no
    /// trusted answer, or no page was read, the row's own text (title, summary, feed body).
    /// Detection off for the source, or no trusted answer either way: the source's language.
    public static func decideRow(
        title: String?, summary: String?, body: String?, page: PageLanguageText?,
        configured: String, detectionEnabled: Bool
    ) -> LanguageDecision {
        func own() -> LanguageDecision {
            decide(title: title ?? "", summary: summary, body: body, configured: configured,
                   detectionEnabled: detectionEnabled)
        }
        guard detectionEnabled, let page else { return own() }
        var fromPage = decide(title: title ?? page.title ?? "", summary: summary ?? page.summary, body: page.body,
                              configured: configured, detectionEnabled: true)
        if fromPage.source == .detected {
            fromPage.fromPage = true
            return fromPage
        }
        // A row with no text of its own (`--dump-article`) has nothing more to try.
        guard title != nil || summary != nil || body != nil else { return fromPage }
        let fromText = own()
        return fromText.source == .detected ? fromText : fromPage
    }

    /// Title, summary and body start, each capped, with every sentence that already appeared
    /// (compared case- and space-insensitively) left out.
    static func detectionBytes(title: String, summary: String?, body: String?) -> [UInt8] {
        var seen = Set<UInt64>()
        var bytes: [UInt8] = []
        var kept: [UInt8] = []
        for (part, cap) in [(title, titleByteCap), (summary ?? "", summaryByteCap), (body ?? "", bodyByteCap)] {
            // Only the part CLD2 will see is split and compared (a body can be 200,000 characters).
            kept.removeAll(keepingCapacity: true)
            TextDeduplication.appendNewSentences(of: prefix(part, maxBytes: cap), seen: &seen, to: &kept)
            guard !kept.isEmpty else { continue }
            if !bytes.isEmpty { bytes.append(0x0A) }  // keeps the last word of one part from merging with the next
            kept.withUnsafeBufferPointer { appendCLD2Bytes($0, maxBytes: cap, to: &bytes) }
        }
        return bytes
    }

    /// The configured language as a valid column value: "PT", "pt-BR" and "iw" are accepted
    /// forms of "pt", "pt" and "he". Config validation should reject anything else; if it slips
    /// through, "en" (the column's default) keeps the row inside the contract.
    static func configuredCode(_ configured: String) -> String {
        ISO639.normalize(configured) ?? "en"
    }

    /// CLD2 without its best-effort flag, its answer trusted when CLD2 itself calls it reliable (no
    /// byte gate). Against the rule before it (best effort, trusted only past 48 letter bytes; gone
    /// from the code, `make bench-language` at commit 57d26d4 shows both) on our 196 labelled
    /// texts: right 0.923 of the time in a source of another language against 0.628, 0.967 in
    /// mixed feeds against 0.958, 0.964 in a source of their own language against 1.000 (9 wrong
    /// answers trusted against none: CLD2's misses on short headlines).
    static func detect(bytes: [UInt8]) -> LanguageDetection {
        var code = [CChar](repeating: 0, count: Int(PULSE_CLD2_CODE_CAPACITY))
        var percent: Int32 = 0
        var score = 0.0
        var reliable: Int32 = 0
        var textBytes: Int32 = 0
        let status = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                pulse_cld2_detect(chars.baseAddress, Int32(chars.count), 1, 0, &code, &percent, &score,
                                  &reliable, &textBytes)
            }
        }
        // The bytes are cut on scalar boundaries with the characters CLD2 refuses replaced, so
        // status 1 (rejected UTF-8) is not expected; any failure counts as an abstention.
        let raw = status == 0 ? String(decoding: code.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "un"
        let abstained = ISO639.isAbstention(raw)
        return LanguageDetection(
            code: abstained ? nil : ISO639.normalize(raw),
            rawCode: raw,
            percent: abstained ? 0 : Int(percent),
            reliable: !abstained && reliable != 0,
            textBytes: Int(textBytes))
    }

    /// The longest prefix of `text` within `maxBytes` of UTF-8, ending on a scalar boundary.
    static func prefix(_ text: String, maxBytes: Int) -> Substring {
        guard text.utf8.count > maxBytes else { return text[...] }
        var end = text.utf8.index(text.utf8.startIndex, offsetBy: maxBytes)
        // Step back over UTF-8 continuation bytes to the start of the scalar that does not fit.
        while end > text.utf8.startIndex, text.utf8[end] & 0xC0 == 0x80 { end = text.utf8.index(before: end) }
        return text[..<end]
    }

    /// The UTF-8 of `text`, at most `maxBytes` and ending on a scalar boundary, with control
    /// characters and noncharacters turned into spaces. CLD2 rejects the whole buffer as invalid
    /// (and answers "un") when it meets a single one of them, e.g. a stray NUL or ESC.
    static func cld2Bytes(_ text: String, maxBytes: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(min(text.utf8.count, maxBytes))
        TextScan.withBytes(text) { appendCLD2Bytes($0, maxBytes: maxBytes, to: &bytes) }
        return bytes
    }

    /// `cld2Bytes` of valid UTF-8, appended to `bytes`. The text between rejected scalars is
    /// copied in runs.
    static func appendCLD2Bytes(_ whole: UnsafeBufferPointer<UInt8>, maxBytes: Int, to bytes: inout [UInt8]) {
        // Only the start can fit (a body may be 200,000 characters): cut on a scalar boundary.
        var end = min(whole.count, maxBytes)
        while end < whole.count, whole[end] & 0xC0 == 0x80 { end -= 1 }
        let source = UnsafeBufferPointer(rebasing: whole[..<end])
        var runStart = 0
        TextScan.forEachScalar(source) { value, range in
            guard isRejectedByCLD2(value) else { return }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: source[runStart..<range.lowerBound]))
            bytes.append(0x20)
            runStart = range.upperBound
        }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: source[runStart...]))
    }

    private static func isRejectedByCLD2(_ value: UInt32) -> Bool {
        switch value {
        case 0x09, 0x0A, 0x0D: false
        case 0x00...0x1F, 0x7F...0x9F: true
        // Noncharacters, spelled out: the property lookup per scalar was a hot spot at ingest.
        case 0xFDD0...0xFDEF: true
        default: value & 0xFFFE == 0xFFFE
        }
    }
}
