/// Eight bytes at a time, for the byte loops that skip plain text (the sanitizer, SimpleHTML).
/// Each test is exact for "some byte of the word is ...": the classic
/// (x - 0x01..) & ~x & 0x80.. is non-zero iff some byte of x is zero, and with 0xNN.. iff some
/// byte is below 0xNN (NN <= 0x80). Byte k of the text is bits 8k..8k+7 (little-endian loads).
enum WordBytes {
    static let ones: UInt64 = 0x0101_0101_0101_0101
    static let high: UInt64 = 0x8080_8080_8080_8080

    /// Non-zero when some byte equals `byte`.
    @inline(__always)
    static func some(_ w: UInt64, equalTo byte: UInt8) -> UInt64 {
        let x = w ^ (ones &* UInt64(byte))
        return (x &- ones) & ~x & high
    }

    /// Non-zero when some byte is below `bound` (at most 0x80).
    @inline(__always)
    static func some(_ w: UInt64, below bound: UInt8) -> UInt64 {
        (w &- ones &* UInt64(bound)) & ~w & high
    }

    /// The high bit of each byte equal to `byte`, and only those (no borrow between bytes).
    @inline(__always)
    static func each(_ w: UInt64, equalTo byte: UInt8) -> UInt64 {
        let low7: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
        let x = w ^ (ones &* UInt64(byte))
        return ~(((x & low7) &+ low7) | x | low7)
    }
}
