/// The last line of defence for every text column: whatever produced the string, what reaches the
/// database has no control or bidi-override characters, folded whitespace where asked, and a cap.
public enum StoredText {
    /// Removes C0/C1 controls (keeping newline and tab when `keepNewlines`), bidi embedding,
    /// override and isolate controls (the LRM, RLM and ALM marks are kept), zero-width and BOM
    /// characters, and lone surrogates' U+FFFD.
    public static func clean(_ text: String, keepNewlines: Bool = false) -> String {
        var scalars = String.UnicodeScalarView()
        scalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            if isForbidden(scalar) {
                if scalar == "\n" || scalar == "\t" || scalar == "\r" {
                    scalars.append(keepNewlines && scalar != "\r" ? scalar : " ")
                }
                continue
            }
            scalars.append(scalar)
        }
        return String(scalars)
    }

    /// `clean`, then whitespace runs folded to one space and the ends trimmed; nil when empty.
    public static func singleLine(_ text: String?, limit: Int) -> String? {
        guard let text else { return nil }
        return cap(foldWhitespace(clean(text)), limit: limit)
    }

    /// `clean` keeping paragraph breaks (at most one blank line), trimmed; nil when empty.
    public static func multiLine(_ text: String?, limit: Int) -> String? {
        guard let text else { return nil }
        let lines = clean(text, keepNewlines: true).split(separator: "\n", omittingEmptySubsequences: false)
        var result: [String] = []
        var blank = false
        for line in lines {
            let folded = foldWhitespace(String(line))
            if folded.isEmpty {
                blank = !result.isEmpty
            } else {
                if blank { result.append("") }
                result.append(folded)
                blank = false
            }
        }
        return cap(result.joined(separator: "\n"), limit: limit)
    }

    /// Cuts to `limit` characters, at the last word boundary when it lies in the second half, trimmed;
    /// nil when empty.
    public static func cap(_ text: String, limit: Int) -> String? {
        let trimmed = text.trimmingWhitespace()
        guard !trimmed.isEmpty else { return nil }
        guard trimmed.count > limit else { return trimmed }
        var cut = trimmed.prefix(limit)
        if let space = cut.lastIndex(where: { $0 == " " || $0 == "\n" }),
           cut.distance(from: cut.startIndex, to: space) > limit / 2 {
            cut = cut[..<space]
        }
        return String(cut).trimmingWhitespace()
    }

    static func isForbidden(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true                 // C0 and C1 controls
        case 0x200B...0x200D: true                          // zero-width (LRM and RLM are kept, see below)
        case 0x202A...0x202E: true                          // embeddings and overrides
        case 0x2066...0x2069: true                          // isolates
        case 0xFEFF, 0xFFFE, 0xFFFF: true                   // BOM, non-characters
        // The marks LRM U+200E, RLM U+200F and ALM U+061C only set the direction of neutral
        // characters next to them (a Hebrew title ending in "2024!" needs its RLM); they cannot
        // reorder text the way embeddings, overrides and isolates do, so they stay.
        default: false
        }
    }

    static func foldWhitespace(_ text: String) -> String {
        var result = String.UnicodeScalarView()
        result.reserveCapacity(text.utf8.count)
        var pendingSpace = false
        for scalar in text.unicodeScalars {
            if isWhitespace(scalar) {
                pendingSpace = !result.isEmpty
            } else {
                if pendingSpace { result.append(" ") }
                result.append(scalar)
                pendingSpace = false
            }
        }
        return String(result)
    }

    /// Unicode White_Space, answered without the property tables for ASCII (nearly all feed text).
    static func isWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        if value < 0x80 { return value == 0x20 || (0x09...0x0D).contains(value) }
        return scalar.properties.isWhitespace
    }
}

extension String {
    func trimmingWhitespace() -> String {
        guard let first = firstIndex(where: { !$0.isWhitespace }),
              let last = lastIndex(where: { !$0.isWhitespace }) else { return "" }
        return String(self[first...last])
    }
}
