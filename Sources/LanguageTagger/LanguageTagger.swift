import CCLD2

/// Per-article language for `articles.language`: CLD2 on the article's own text, falling back to
/// the source's configured language whenever the detection cannot be trusted.
public enum LanguageTagger {
    /// Fewest letter bytes CLD2 must score before its answer counts. Under the best-effort flag
    /// CLD2 calls even one word reliable ("Brexit" -> la, "Huelga general" -> en). Measured on our
    /// samples cut into 1-15-word prefixes: 43-82% right under 32 letter bytes, 95-96% at 32-47,
    /// 97-100% from 48 on. A wrong tag hides an article from its readers; a fallback rarely does.
    public static let minimumTextBytes = 48
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
    /// start of the body (headlines alone are often too short to tell close languages apart).
    public static func decide(
        title: String, summary: String?, body: String?, configured: String, detectionEnabled: Bool
    ) -> LanguageDecision {
        let fallback = configuredCode(configured)
        guard detectionEnabled else {
            return LanguageDecision(code: fallback, source: .configured(reason: .disabled), detected: nil, disagrees: false)
        }
        var bytes = cld2Bytes(title, maxBytes: titleByteCap)
        for (part, cap) in [(summary, summaryByteCap), (body, bodyByteCap)] {
            guard let part, !part.isEmpty else { continue }
            bytes.append(0x0A)  // newline keeps the last word of one part from merging with the next
            bytes += cld2Bytes(part, maxBytes: cap)
        }
        let detection = detect(bytes: bytes)
        func keep(_ reason: LanguageDecision.FallbackReason) -> LanguageDecision {
            LanguageDecision(code: fallback, source: .configured(reason: reason), detected: detection, disagrees: false)
        }
        if ISO639.isAbstention(detection.rawCode) { return keep(.abstained) }
        if !detection.reliable { return keep(.unreliable) }
        guard let code = detection.code else { return keep(.notTwoLetter) }
        return LanguageDecision(code: code, source: .detected, detected: detection, disagrees: code != fallback)
    }

    /// The configured language as a valid column value: "PT", "pt-BR" and "iw" are accepted
    /// forms of "pt", "pt" and "he". Config validation should reject anything else; if it slips
    /// through, "en" (the column's default) keeps the row inside the contract.
    static func configuredCode(_ configured: String) -> String {
        ISO639.normalize(configured) ?? "en"
    }

    static func detect(bytes: [UInt8]) -> LanguageDetection {
        var code = [CChar](repeating: 0, count: Int(PULSE_CLD2_CODE_CAPACITY))
        var percent: Int32 = 0
        var score = 0.0
        var reliable: Int32 = 0
        var textBytes: Int32 = 0
        let status = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                pulse_cld2_detect(chars.baseAddress, Int32(chars.count), 1, &code, &percent, &score, &reliable, &textBytes)
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
            reliable: !abstained && reliable != 0 && Int(textBytes) >= minimumTextBytes,
            textBytes: Int(textBytes))
    }

    /// The UTF-8 of `text`, at most `maxBytes` and ending on a scalar boundary, with control
    /// characters and noncharacters turned into spaces. CLD2 rejects the whole buffer as invalid
    /// (and answers "un") when it meets a single one of them, e.g. a stray NUL or ESC.
    static func cld2Bytes(_ text: String, maxBytes: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(min(text.utf8.count, maxBytes))
        for scalar in text.unicodeScalars {
            let width = UTF8.width(scalar)
            guard bytes.count + width <= maxBytes else { break }
            if isRejectedByCLD2(scalar) {
                bytes.append(0x20)
            } else {
                bytes.append(contentsOf: scalar.utf8)
            }
        }
        return bytes
    }

    private static func isRejectedByCLD2(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09, 0x0A, 0x0D: false
        case 0x00...0x1F, 0x7F...0x9F: true
        // Noncharacters, spelled out: the property lookup per scalar was a hot spot at ingest.
        case 0xFDD0...0xFDEF: true
        default: scalar.value & 0xFFFE == 0xFFFE
        }
    }
}
