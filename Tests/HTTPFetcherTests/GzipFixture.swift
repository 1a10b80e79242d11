/// Builds gzip streams in code (fixed-Huffman deflate: literals plus length-258/distance-1 copies)
/// so the tests need neither zlib bindings nor large binary fixture files.
enum GzipFixture {
    /// A valid gzip of `prefix` followed by `count` copies of `byte`.
    static func gzip(prefix: [UInt8], repeating byte: UInt8, count: Int) -> [UInt8] {
        var deflate = BitWriter()
        deflate.writeBits(1, count: 1) // BFINAL
        deflate.writeBits(1, count: 2) // BTYPE = fixed Huffman
        for b in prefix { deflate.literal(b) }
        var left = count
        if left > 0 { deflate.literal(byte); left -= 1 }
        while left >= 258 { deflate.copy258(); left -= 258 }
        for _ in 0..<left { deflate.literal(byte) }
        deflate.endOfBlock()
        let content = prefix + [UInt8](repeating: byte, count: count)
        return header + deflate.finish() + littleEndian(crc32(content)) + littleEndian(UInt32(truncatingIfNeeded: content.count))
    }

    /// About `compressedSize` bytes of gzip that inflate to roughly 258 times as much zeros.
    /// The trailer (CRC and length) is left zero: the fetcher must abort long before reaching it,
    /// and if it ever did, zlib's CRC check would fail the transfer with a decoding error, not the
    /// `tooLarge` the test expects.
    static func bomb(compressedSize: Int) -> [UInt8] {
        var deflate = BitWriter()
        deflate.writeBits(1, count: 1)
        deflate.writeBits(1, count: 2)
        deflate.literal(0)
        for _ in 0..<(compressedSize * 8 / 13) { deflate.copy258() }
        deflate.endOfBlock()
        return header + deflate.finish() + [UInt8](repeating: 0, count: 8)
    }

    private static let header: [UInt8] = [0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0xff]

    private static func littleEndian(_ v: UInt32) -> [UInt8] {
        [UInt8(v & 0xff), UInt8(v >> 8 & 0xff), UInt8(v >> 16 & 0xff), UInt8(v >> 24)]
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var table = [UInt32](repeating: 0, count: 256)
        for i in 0..<256 {
            var c = UInt32(i)
            for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
            table[i] = c
        }
        var crc: UInt32 = 0xffff_ffff
        for b in bytes { crc = table[Int((crc ^ UInt32(b)) & 0xff)] ^ (crc >> 8) }
        return crc ^ 0xffff_ffff
    }

    struct BitWriter {
        var bytes: [UInt8] = []
        var buffer: UInt64 = 0
        var used = 0

        mutating func writeBits(_ value: UInt32, count: Int) {
            buffer |= UInt64(value) << UInt64(used)
            used += count
            while used >= 8 {
                bytes.append(UInt8(buffer & 0xff))
                buffer >>= 8
                used -= 8
            }
        }

        /// Huffman codes go most-significant bit first.
        mutating func code(_ value: UInt32, length: Int) {
            var reversed: UInt32 = 0
            for i in 0..<length where value & (1 << UInt32(i)) != 0 { reversed |= 1 << UInt32(length - 1 - i) }
            writeBits(reversed, count: length)
        }

        mutating func literal(_ b: UInt8) {
            if b < 144 { code(0x30 + UInt32(b), length: 8) } else { code(0x190 + UInt32(b) - 144, length: 9) }
        }

        /// Length 258 (symbol 285) at distance 1 (distance code 0).
        mutating func copy258() {
            code(0xC5, length: 8)
            code(0, length: 5)
        }

        mutating func endOfBlock() { code(0, length: 7) }

        mutating func finish() -> [UInt8] {
            if used > 0 { bytes.append(UInt8(buffer & 0xff)); buffer = 0; used = 0 }
            return bytes
        }
    }
}
