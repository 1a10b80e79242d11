#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A byte-level tag scanner used before gumbo runs: the meta-charset pre-scan and the
/// element-count / nesting-depth estimate that protects gumbo from hostile input.
/// Hand-written because it must run on undecoded bytes in one linear pass.
struct TagScanner {
    struct Tag {
        var name: String
        var isEnd: Bool
        var selfClosing: Bool
        var attributes: [String: String]
        var attributeCount = 0
        /// What the pre-scans' name sets say about `name`.
        var info = TagNameInfo(traits: [], slot: nil)
    }

    let bytes: [UInt8]
    let end: Int
    var position = 0
    /// When false, attributes are skipped (the depth pre-scan needs only names).
    var readAttributes = true
    /// The last tag's attribute bytes (after its name, up to its `>`), and the raw text that
    /// followed it when it opened a raw-text element (`script`, `style`...), nil otherwise.
    private(set) var attributeBytes: Range<Int> = 0..<0
    private(set) var rawText: Range<Int>?
    /// False inside SVG/MathML, where `<style>`, `<title>`... are ordinary elements, not raw text.
    var rawTextApplies = true
    /// When true, `textRuns` lists the character data (outside comments and raw text, split at
    /// every `<`) that the last `nextTag()` stepped over before its tag.
    var collectsTextRuns = false
    private(set) var textRuns: [Range<Int>] = []
    private let names = TagNames.table
    private let slotNames = TagNames.slotNames

    init(bytes: [UInt8], end: Int, readAttributes: Bool = true) {
        self.bytes = bytes
        self.end = end
        self.readAttributes = readAttributes
    }

    /// A tag or attribute name as the HTML tokenizer reads it: ASCII letters lowercased, other
    /// bytes kept (String.lowercased() would also fold non-ASCII letters, and cost a second copy).
    static func lowercasedName(_ name: ArraySlice<UInt8>) -> String {
        String(unsafeUninitializedCapacity: name.count) { buffer in
            var index = 0
            for byte in name {
                buffer[index] = byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
                index += 1
            }
            return index
        }
    }

    static func isLetter(_ b: UInt8) -> Bool { (b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A }
    static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D || b == 0x0C }

    /// Skips raw-text content (script, style...) up to its appropriate end tag: `</name` followed
    /// by whitespace, `/` or `>` (`</scriptx` does not end a script). `plaintext` never ends.
    mutating func skipRawText(named name: String) {
        guard name != "plaintext" else { position = end; return }
        let closing = Array("</\(name)".utf8)
        while position < end {
            position = nextLessThan(from: position)
            guard position < end else { return }
            if matches(closing, at: position) {
                let after = position + closing.count
                // At the end of input `</script` is text, not an end tag (the tokenizer emits it).
                if after < end, Self.isSpace(bytes[after]) || bytes[after] == 0x2F || bytes[after] == 0x3E { return }
            }
            position += 1
        }
    }

    /// The index of the next `<` at or after `start`, or `end`. memchr: the text between tags is
    /// most of a page's bytes, and stepping through it one checked index at a time was half of
    /// this scan (about 14 instructions a byte).
    func nextLessThan(from start: Int) -> Int {
        guard start < end else { return end }
        return bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress, let hit = memchr(base + start, 0x3C, end - start) else { return end }
            return base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
        }
    }

    /// ASCII letters compare without case, every other byte exactly (`<\u{0F}script` is no end tag:
    /// `| 0x20` alone would fold 0x0F into `/`).
    func matches(_ pattern: [UInt8], at index: Int) -> Bool {
        guard index + pattern.count <= end else { return false }
        for offset in 0..<pattern.count {
            let byte = bytes[index + offset]
            let wanted = pattern[offset]
            if byte == wanted { continue }
            guard Self.isLetter(wanted), byte | 0x20 == wanted | 0x20 else { return false }
        }
        return true
    }

    /// Moves past a comment that starts at `position` (`<!--`), by the HTML tokenizer's rules:
    /// `<!-->` and `<!--->` are empty comments, and `-->` or `--!>` closes one.
    private mutating func skipComment() {
        position += 4
        if position < end, bytes[position] == 0x3E { position += 1; return }
        if position + 1 < end, bytes[position] == 0x2D, bytes[position + 1] == 0x3E { position += 2; return }
        while position < end {
            if bytes[position] == 0x2D, position + 2 < end, bytes[position + 1] == 0x2D {
                if bytes[position + 2] == 0x3E { position += 3; return }
                if bytes[position + 2] == 0x21, position + 3 < end, bytes[position + 3] == 0x3E { position += 4; return }
            }
            position += 1
        }
    }

    /// A bogus comment (`<!x`, `<?x`, `</1`...) or a doctype: up to the next `>`.
    private mutating func skipToGreaterThan() {
        while position < end, bytes[position] != 0x3E { position += 1 }
        position += 1
    }

    mutating func nextTag() -> Tag? {
        if collectsTextRuns { textRuns.removeAll(keepingCapacity: true) }
        while position < end {
            guard bytes[position] == 0x3C else {
                let next = nextLessThan(from: position)
                if collectsTextRuns { textRuns.append(position..<next) }
                position = next
                continue
            }
            guard position + 1 < end else { position += 1; continue }
            let next = bytes[position + 1]
            if next == 0x21 {  // <!
                if position + 3 < end, bytes[position + 2] == 0x2D, bytes[position + 3] == 0x2D { skipComment() } else { skipToGreaterThan() }
                continue
            }
            if next == 0x3F { skipToGreaterThan(); continue }  // <? is a bogus comment
            var cursor = position + 1
            let isEnd = next == 0x2F
            if isEnd {
                cursor += 1
                // `</>` is dropped and `</` + non-letter opens a bogus comment; both end at `>`.
                if cursor < end, !Self.isLetter(bytes[cursor]) { skipToGreaterThan(); continue }
            }
            guard cursor < end, Self.isLetter(bytes[cursor]) else { position += 1; continue }
            let nameStart = cursor
            while cursor < end, !Self.isSpace(bytes[cursor]), bytes[cursor] != 0x3E, bytes[cursor] != 0x2F {
                cursor += 1
            }
            let info = TagNames.info(bytes[nameStart..<cursor], in: names)
            let name = info.slot.map { slotNames[$0] } ?? Self.lowercasedName(bytes[nameStart..<cursor])
            var tag = Tag(name: name, isEnd: isEnd, selfClosing: false, attributes: [:], info: info)
            position = cursor
            parseAttributes(into: &tag)
            attributeBytes = cursor..<max(cursor, min(position, end))
            rawText = nil
            if !isEnd, rawTextApplies, tag.info.traits.contains(.rawText) {
                let start = min(position, end)
                skipRawText(named: name)
                rawText = start..<max(start, min(position, end))
            }
            return tag
        }
        return nil
    }

    static let rawTextElements: Set<String> = ["script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes", "plaintext"]

    private mutating func parseAttributes(into tag: inout Tag) {
        while position < end {
            let byte = bytes[position]
            if byte == 0x3E { position += 1; return }
            if byte == 0x2F {
                if position + 1 < end, bytes[position + 1] == 0x3E { tag.selfClosing = true }
                position += 1
                continue
            }
            if Self.isSpace(byte) { position += 1; continue }
            let nameStart = position
            // `=` or `/` starting a name belongs to it, as in the tokenizer's "before attribute name"
            // state: `<div ="a>b">` is an attribute named `="a` and the tag ends at the first `>`.
            while position < end, !Self.isSpace(bytes[position]), bytes[position] != 0x3E,
                  (bytes[position] != 0x3D && bytes[position] != 0x2F) || position == nameStart {
                position += 1
            }
            let nameEnd = position
            tag.attributeCount += 1
            while position < end, Self.isSpace(bytes[position]) { position += 1 }
            var value = ""
            if position < end, bytes[position] == 0x3D {
                position += 1
                while position < end, Self.isSpace(bytes[position]) { position += 1 }
                let valueStart: Int
                let valueEnd: Int
                if position < end, bytes[position] == 0x22 || bytes[position] == 0x27 {
                    let quote = bytes[position]
                    valueStart = position + 1
                    position += 1
                    while position < end, bytes[position] != quote { position += 1 }
                    valueEnd = position
                    position += 1
                } else {
                    valueStart = position
                    while position < end, !Self.isSpace(bytes[position]), bytes[position] != 0x3E { position += 1 }
                    valueEnd = position
                }
                if readAttributes, valueEnd > valueStart, valueEnd - valueStart < 4096 {
                    value = String(decoding: bytes[valueStart..<min(valueEnd, end)], as: UTF8.self)
                }
            }
            if readAttributes, nameEnd > nameStart {
                let name = Self.lowercasedName(bytes[nameStart..<nameEnd])
                if tag.attributes[name] == nil { tag.attributes[name] = value }
            }
        }
    }
}

