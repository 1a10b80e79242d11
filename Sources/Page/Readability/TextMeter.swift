import PulseModel
import TextSupport

/// Text measurements Readability.js makes with `_getInnerText(e).length` and
/// `split(commas)`, computed in one pass over UTF-8 without building the string.
/// Lengths are in UTF-16 code units, as JavaScript counts them; whitespace is JavaScript's
/// `\s` (ASCII spaces, NBSP, U+1680, U+2000-200A, U+2028/2029, U+202F, U+205F, U+3000, U+FEFF).
struct TextMeter {
    /// Length after trimming and collapsing whitespace runs.
    private(set) var length = 0
    private(set) var commas = 0
    private var pendingSpace = false
    private var seenText = false

    mutating func add(_ text: String) {
        // On the string's own bytes: String.UTF8View's iterator re-checks the storage kind on
        // every byte, which was most of this loop's cost. A sequence cut short reads as zeros.
        TextScan.withBytes(text) { bytes in
            let count = bytes.count
            func at(_ index: Int) -> UInt8 { index < count ? bytes[index] : 0 }
            var index = 0
            while index < count {
                let byte = bytes[index]
                if byte < 0x80 {
                    index += 1
                    if byte == 0x20 || (byte >= 0x09 && byte <= 0x0D) { space(); continue }
                    glyph(units: 1)
                    if byte == 0x2C { commas += 1 }
                } else if byte >= 0xF0 {
                    index += 4
                    glyph(units: 2)
                } else if byte >= 0xE0 {
                    let scalar = (UInt32(byte & 0x0F) << 12) | (UInt32(at(index + 1) & 0x3F) << 6) | UInt32(at(index + 2) & 0x3F)
                    index += 3
                    if Self.isWideSpace(scalar) { space(); continue }
                    glyph(units: 1)
                    if Self.isWideComma(scalar) { commas += 1 }
                } else if byte >= 0xC0 {
                    let scalar = (UInt32(byte & 0x1F) << 6) | UInt32(at(index + 1) & 0x3F)
                    index += 2
                    if scalar == 0xA0 { space(); continue }
                    glyph(units: 1)
                    if scalar == 0x060C { commas += 1 }
                } else {
                    index += 1
                }
            }
        }
    }

    private mutating func space() { if seenText { pendingSpace = true } }

    /// What one text node contributes, so a subtree is measured by combining its text nodes'
    /// summaries instead of re-reading their bytes: every tree edit invalidates the subtree
    /// caches, and re-scanning the same text after each was ~5% of an extraction's CPU.
    struct Summary {
        /// Length and commas of the text trimmed and collapsed on its own.
        var length: Int
        var commas: Int
        /// Starts or ends with whitespace; `hasText` false means only whitespace (or nothing).
        var leadingSpace: Bool
        var trailingSpace: Bool
        var hasText: Bool
    }

    static func summary(of text: String) -> Summary {
        var meter = TextMeter()
        meter.add(text)
        let first = text.unicodeScalars.first
        return Summary(length: meter.length, commas: meter.commas,
                       leadingSpace: first.map { $0.isJSWhitespace } ?? false,
                       trailingSpace: meter.pendingSpace, hasText: meter.seenText)
    }

    /// The same as `add` of the text `summary` was made from.
    mutating func add(_ summary: Summary) {
        guard summary.hasText else {
            if summary.leadingSpace { space() }
            return
        }
        if summary.leadingSpace { space() }
        if pendingSpace { length += 1; pendingSpace = false }
        length += summary.length
        commas += summary.commas
        seenText = true
        pendingSpace = summary.trailingSpace
    }

    private mutating func glyph(units: Int) {
        if pendingSpace { length += 1; pendingSpace = false }
        length += units
        seenText = true
    }

    static func isWideSpace(_ scalar: UInt32) -> Bool {
        scalar == 0x1680 || (0x2000...0x200A).contains(scalar) || scalar == 0x2028 || scalar == 0x2029
            || scalar == 0x202F || scalar == 0x205F || scalar == 0x3000 || scalar == 0xFEFF
    }

    /// JavaScript's `\s` for one scalar value.
    static func isJSWhitespace(_ value: UInt32) -> Bool {
        value < 0x80 ? value == 0x20 || (value >= 0x09 && value <= 0x0D) : value == 0xA0 || isWideSpace(value)
    }

    static func isWideComma(_ scalar: UInt32) -> Bool {
        scalar == 0xFE50 || scalar == 0xFE10 || scalar == 0xFE11 || scalar == 0x2E41 || scalar == 0x2E34
            || scalar == 0x2E32 || scalar == 0xFF0C
    }

    static func measure(_ node: DNode) -> TextMeter {
        var meter = TextMeter()
        if node.cacheEpoch == node.meter.epoch {
            meter.length = node.cachedLength
            meter.commas = node.cachedCommas
            return meter
        }
        defer {
            node.cachedLength = meter.length
            node.cachedCommas = meter.commas
            node.cacheEpoch = node.meter.epoch
        }
        if node.kind == .text { meter.add(node.measuredText); return meter }
        node.forEachDescendant { visiting in
            if visiting.kind == .text { meter.add(visiting.measuredText) }
            return true
        }
        return meter
    }
}

extension Unicode.Scalar {
    /// JavaScript's `\s`, without the Unicode property tables on the hot path.
    var isJSWhitespace: Bool { TextMeter.isJSWhitespace(value) }
}

extension DNode {
    var measuredText: TextMeter.Summary {
        if let textSummary { return textSummary }
        let made = TextMeter.summary(of: text)
        textSummary = made
        return made
    }

    /// `_getInnerText(node).length`.
    var innerTextLength: Int { TextMeter.measure(self).length }

    /// `_getInnerText(node)`: trimmed, runs of whitespace collapsed to one space. Built from the
    /// text nodes' UTF-8 into one byte buffer: appending scalar by scalar to a String was ~10% of
    /// an extraction's CPU.
    var innerText: String {
        var bytes: [UInt8] = []
        var pendingSpace = false
        func append(_ text: String) {
            var text = text
            text.withUTF8 { appendCollapsed($0, to: &bytes, pendingSpace: &pendingSpace) }
        }
        if kind == .text {
            append(text)
        } else {
            forEachDescendant { node in
                if node.kind == .text { append(node.text) }
                return true
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The first `limit` characters of `innerText`, without building the rest.
    func textPrefix(_ limit: Int) -> String {
        // Built as UTF-8 bytes: appending to a String.UnicodeScalarView cost ~400 instructions a
        // scalar, and this runs on every block the boilerplate rules look at.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(limit + 8)
        var count = 0
        var pendingSpace = false
        var node = kind == .text ? self : following(within: self)
        while let current = node, count < limit {
            if current.kind == .text {
                var text = current.text
                text.withUTF8 { utf8 in
                    var index = 0
                    while index < utf8.count {
                        let (value, next) = TextScan.scalar(at: index, in: utf8)
                        defer { index = next }
                        if TextMeter.isJSWhitespace(value) {
                            if count > 0 { pendingSpace = true }
                            continue
                        }
                        if pendingSpace { bytes.append(0x20); pendingSpace = false; count += 1 }
                        // One byte appended as a byte: the generic append of a one-byte slice cost
                        // more than the rest of the loop.
                        if next == index + 1 {
                            bytes.append(utf8[index])
                        } else {
                            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[index..<next]))
                        }
                        count += 1
                        if count >= limit { return }
                    }
                }
            }
            if kind == .text { break }
            node = current.following(within: self)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// True when `textContent.trim()` is empty.
    var hasNoText: Bool {
        func isBlank(_ text: String) -> Bool { !text.unicodeScalars.contains(where: { !$0.isJSWhitespace }) }
        if kind == .text { return isBlank(text) }
        var blank = true
        forEachDescendant { node in
            if node.kind == .text, !isBlank(node.text) { blank = false }
            return blank
        }
        return blank
    }
}

/// Appends `source` to `bytes` with JavaScript-whitespace runs collapsed to one space and none at
/// the start; `pendingSpace` carries a run across text nodes. Runs of bytes that cannot start a
/// space are copied whole (byte-by-byte appends were ~2.5% of an extraction's instructions).
private func appendCollapsed(_ source: UnsafeBufferPointer<UInt8>, to bytes: inout [UInt8], pendingSpace: inout Bool) {
    var index = 0
    let end = source.count
    while index < end {
        var runEnd = index
        // A single ASCII space between two bytes that cannot start a space stays in the run: it
        // is its own collapsed form, and ending the run at every word cost an append per word.
        while runEnd < end {
            let byte = source[runEnd]
            if !mayStartSpace(byte) { runEnd += 1; continue }
            guard byte == 0x20, runEnd > index, runEnd + 1 < end, !mayStartSpace(source[runEnd + 1]) else { break }
            runEnd += 2
        }
        if runEnd > index {
            if pendingSpace { bytes.append(0x20); pendingSpace = false }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: source[index..<runEnd]))
            index = runEnd
            continue
        }
        let byte = source[index]
        var width = 1
        var isSpace = false
        if byte < 0x80 {
            isSpace = true  // only ASCII whitespace stops a run
        } else if byte >= 0xF0 {
            width = 4
        } else if byte >= 0xE0 {
            width = 3
            if index + 2 < end {
                let scalar = (UInt32(byte & 0x0F) << 12) | (UInt32(source[index + 1] & 0x3F) << 6) | UInt32(source[index + 2] & 0x3F)
                isSpace = TextMeter.isWideSpace(scalar)
            }
        } else if byte >= 0xC0 {
            width = 2
            isSpace = byte == 0xC2 && index + 1 < end && source[index + 1] == 0xA0
        }
        width = min(width, end - index)
        if isSpace {
            if !bytes.isEmpty { pendingSpace = true }
        } else {
            if pendingSpace { bytes.append(0x20); pendingSpace = false }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: source[index..<(index + width)]))
        }
        index += width
    }
}

/// ASCII whitespace, or the lead byte of NBSP (C2), U+1680 (E1), U+2000-205F (E2), U+3000 (E3) or
/// U+FEFF (EF): the only bytes where JavaScript whitespace can begin.
private func mayStartSpace(_ byte: UInt8) -> Bool {
    byte == 0x20 || (byte >= 0x09 && byte <= 0x0D) || byte == 0xC2 || byte == 0xE1 || byte == 0xE2 || byte == 0xE3 || byte == 0xEF
}
