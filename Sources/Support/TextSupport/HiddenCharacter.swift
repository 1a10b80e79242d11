/// The one definition of the characters that hide, break or disguise text: controls, line
/// separators, direction controls and invisible code points. Every place that cleans or refuses
/// text asks here (stored text, stored URLs, config values, log lines, systemd's STATUS, page
/// metadata); each decides what to do with a kind, never which characters belong to it.
public enum HiddenCharacter: Sendable, Hashable {
    /// LF, CR, NEL, LINE SEPARATOR, PARAGRAPH SEPARATOR: they end a line (a log line, a
    /// KEY=VALUE datagram) wherever they stand.
    case lineBreak
    /// The other C0 and C1 controls and DEL (TAB included).
    case control
    /// LRM U+200E, RLM U+200F, ALM U+061C: they set the direction of neutral characters next to
    /// them (a Hebrew title ending in "2024!" needs its RLM) but cannot reorder text.
    case directionMark
    /// Embeddings, overrides and isolates (U+202A-E, U+2066-9): they reorder what is displayed,
    /// so text can read differently from what it is.
    case reordering
    /// Zero-width space, non-joiner and joiner (U+200B-D), the byte-order mark U+FEFF and the
    /// non-characters U+FFFE/U+FFFF: nothing shows where they stand.
    case invisible

    /// The kind of `value`, nil for a character that shows.
    @inlinable
    public static func kind(_ value: UInt32) -> HiddenCharacter? {
        switch value {
        case 0x0A, 0x0D, 0x85, 0x2028, 0x2029: .lineBreak
        case 0x00...0x1F, 0x7F...0x9F: .control
        case 0x061C, 0x200E, 0x200F: .directionMark
        case 0x202A...0x202E, 0x2066...0x2069: .reordering
        case 0x200B...0x200D, 0xFEFF, 0xFFFE, 0xFFFF: .invisible
        default: nil
        }
    }

    @inlinable
    public static func kind(_ scalar: Unicode.Scalar) -> HiddenCharacter? { kind(scalar.value) }

    /// Any hidden character at all.
    @inlinable
    public static func isHidden(_ scalar: Unicode.Scalar) -> Bool { kind(scalar.value) != nil }
}
