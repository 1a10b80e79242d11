import TextSupport
/// The last line of defence for every text column: whatever produced the string, what reaches the
/// database has no control or bidi-override characters, folded whitespace where asked, and a cap.
///
/// Every stored article's title, summary and body passes through here, so the work is one pass
/// over the UTF-8 bytes (`TextScan`), never per-scalar String appends: the daemon spent a third
/// of its CPU in the scalar-by-scalar version.
public enum StoredText {
    /// Removes every `HiddenCharacter` but the direction marks (LRM, RLM and ALM are kept): line
    /// breaks become newlines when `keepNewlines` (CR a space), else spaces; tab stays when
    /// `keepNewlines`, else a space; the others disappear.
    public static func clean(_ text: String, keepNewlines: Bool = false) -> String {
        TextScan.transform(text) { bytes, out in
            TextScan.forEachScalar(bytes) { value, range in
                if isForbidden(value) {
                    if value == 0x09 {
                        out.append(keepNewlines ? 0x09 : 0x20)
                    } else if isLineBreak(value) {
                        out.append(keepNewlines && value != 0x0D ? 0x0A : 0x20)
                    }
                } else {
                    TextScan.appendScalar(bytes, range, to: &out)
                }
            }
        }
    }

    /// `clean`, then whitespace runs folded to one space and the ends trimmed; nil when empty.
    public static func singleLine(_ text: String?, limit: Int) -> String? {
        guard let text else { return nil }
        let folded = TextScan.transform(text) { bytes, out in
            var pendingSpace = false
            TextScan.forEachScalar(bytes) { value, range in
                if isForbidden(value) {
                    // Line breaks and tab become spaces; every other hidden character disappears.
                    if value == 0x09 || isLineBreak(value) { pendingSpace = !out.isEmpty }
                } else if isWhitespace(value) {
                    pendingSpace = !out.isEmpty
                } else {
                    if pendingSpace { out.append(0x20) }
                    pendingSpace = false
                    TextScan.appendScalar(bytes, range, to: &out)
                }
            }
        }
        return cap(folded, limit: limit)
    }

    /// `clean` keeping paragraph breaks (at most one blank line), each line's whitespace folded,
    /// trimmed; nil when empty.
    public static func multiLine(_ text: String?, limit: Int) -> String? {
        guard let text else { return nil }
        let folded = TextScan.transform(text) { bytes, out in
            var pendingSpace = false
            var lineHasText = false
            // Line breaks owed before the next text: 1 after a line with text, 2 once an empty
            // line followed it (runs of empty lines keep one blank line; none at either end).
            var pendingBreaks = 0
            TextScan.forEachScalar(bytes) { value, range in
                if isLineBreak(value) && value != 0x0D {
                    if lineHasText {
                        lineHasText = false
                        pendingBreaks = 1
                    } else if !out.isEmpty {
                        pendingBreaks = 2
                    }
                    pendingSpace = false
                } else if isForbidden(value) && value != 0x09 && value != 0x0D {
                    return  // dropped without a trace, as `clean` does
                } else if value == 0x09 || value == 0x0D || isWhitespace(value) {
                    pendingSpace = lineHasText
                } else {
                    if pendingBreaks > 0 {
                        out.append(0x0A)
                        if pendingBreaks == 2 { out.append(0x0A) }
                        pendingBreaks = 0
                    } else if pendingSpace {
                        out.append(0x20)
                    }
                    pendingSpace = false
                    lineHasText = true
                    TextScan.appendScalar(bytes, range, to: &out)
                }
            }
        }
        return cap(folded, limit: limit)
    }

    /// Cuts to `limit` characters, at the last word boundary when it lies in the second half, trimmed;
    /// nil when empty.
    public static func cap(_ text: String, limit: Int) -> String? {
        // A string of at most `limit` bytes has at most `limit` characters; the callers hand in
        // folded text, whose ends are already trimmed, so the common case copies nothing.
        if text.utf8.count <= limit, let first = text.utf8.first, let last = text.utf8.last,
           !isWhitespace(UInt32(first)), !isWhitespace(UInt32(last)), first < 0x80, last < 0x80 {
            return text
        }
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

    static func isForbidden(_ scalar: Unicode.Scalar) -> Bool { isForbidden(scalar.value) }

    /// Every hidden character except the direction marks, which only set the direction of
    /// neutral characters next to them and cannot reorder text.
    static func isForbidden(_ value: UInt32) -> Bool {
        switch HiddenCharacter.kind(value) {
        case nil, .directionMark?: false
        default: true
        }
    }

    static func isLineBreak(_ value: UInt32) -> Bool { HiddenCharacter.kind(value) == .lineBreak }

    /// Unicode White_Space. The property's 25 code points are fixed by the standard (unchanged
    /// since Unicode 6.3), so they are listed here instead of a property-table lookup per scalar;
    /// PulseModelTests checks the list against `Unicode.Scalar.Properties.isWhitespace`.
    static func isWhitespace(_ value: UInt32) -> Bool {
        if value < 0x80 { return value == 0x20 || (0x09...0x0D).contains(value) }
        switch value {
        case 0x85, 0xA0, 0x1680, 0x2000...0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000: return true
        default: return false
        }
    }
}

extension String {
    func trimmingWhitespace() -> String {
        guard let first = firstIndex(where: { !$0.isWhitespace }),
              let last = lastIndex(where: { !$0.isWhitespace }) else { return "" }
        return String(self[first...last])
    }
}
