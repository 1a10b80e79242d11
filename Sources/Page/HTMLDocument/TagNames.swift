/// What the pre-scans (`MarkupEstimate`, `InertText`, `TagScanner`'s raw-text rule) know about a tag
/// name, found from the name's bytes by one probe of a small table. Looking each name up in
/// `Set<String>`s hashed it with SipHash once per set: 9M of the 20M instructions the markup
/// pre-scan spent on 68 small news pages. Hand-written: no package here offers a static byte-keyed
/// table, and the sets stay the only place the names are listed (the table is built from them).
struct TagTraits: OptionSet, Sendable {
    let rawValue: UInt32
    static let flat = TagTraits(rawValue: 1 << 0)
    static let foreignLeaf = TagTraits(rawValue: 1 << 1)
    static let formatting = TagTraits(rawValue: 1 << 2)
    static let blockStart = TagTraits(rawValue: 1 << 3)
    static let tableCell = TagTraits(rawValue: 1 << 4)
    static let document = TagTraits(rawValue: 1 << 5)
    /// `TagScanner.rawTextElements`: its text is skipped up to the matching end tag.
    static let rawText = TagTraits(rawValue: 1 << 6)
    /// `InertText.plainForeignElements`: may come and go inside `<svg>`.
    static let plainForeign = TagTraits(rawValue: 1 << 7)
    static let svg = TagTraits(rawValue: 1 << 8)
    static let math = TagTraits(rawValue: 1 << 9)
    static let script = TagTraits(rawValue: 1 << 10)
    static let style = TagTraits(rawValue: 1 << 11)
    /// `<select>`, `<frameset>`, `<math>`: inert-text collection stops at them.
    static let stopsInertText = TagTraits(rawValue: 1 << 12)
}

/// A name's traits and its slot in the per-name counters (`slot` is nil for names no set lists).
struct TagNameInfo: Sendable {
    var traits: TagTraits
    var slot: Int?
}

enum TagNames {
    /// Longest listed name: "animatetransform". Longer names are unknown without a probe.
    static let maxLength = 16

    struct Entry {
        var low: UInt64 = 0
        var high: UInt64 = 0
        var length = 0   // 0: empty
        var traits = TagTraits()
        var slot = 0
    }

    /// Every listed name with the traits its sets give it.
    static let listed: [String: TagTraits] = {
        var traits: [String: TagTraits] = [:]
        let sets: [(Set<String>, TagTraits)] = [
            (MarkupEstimate.flatTags, .flat), (MarkupEstimate.foreignLeaves, .foreignLeaf),
            (MarkupEstimate.formattingTags, .formatting), (MarkupEstimate.blockStarts, .blockStart),
            (MarkupEstimate.tableCells, .tableCell), (MarkupEstimate.documentTags, .document),
            (MarkupEstimate.commonContainers, []), (TagScanner.rawTextElements, .rawText),
            (InertText.plainForeignElements, .plainForeign), (["svg"], .svg), (["math"], [.math, .stopsInertText]),
            (["script"], .script), (["style"], .style), (["select", "frameset"], .stopsInertText),
        ]
        for (names, trait) in sets {
            for name in names { traits[name, default: []].formUnion(trait) }
        }
        return traits
    }()

    /// Counter slots: one per listed name.
    static var slotCount: Int { listed.count }

    /// Each slot's name, as `TagScanner.lowercasedName` spells it: a listed tag's name is taken
    /// from here instead of being made anew for every tag.
    static let slotNames: [String] = listed.keys.sorted()

    private static let tableBits = 9
    /// Held by each scanner, so a lookup does not pass the lazy global's once-check per tag.
    static let table: [Entry] = {
        var table = [Entry](repeating: Entry(), count: 1 << tableBits)
        for (slot, name) in slotNames.enumerated() {
            let bytes = Array(name.utf8)
            precondition(bytes.count <= maxLength && bytes.count > 0, "tag name \(name) does not fit the table")
            let (low, high) = pack(bytes[...])
            var index = bucket(low, high, bytes.count)
            while table[index].length != 0 { index = (index + 1) & (table.count - 1) }
            table[index] = Entry(low: low, high: high, length: bytes.count, traits: listed[name]!, slot: slot)
        }
        return table
    }()

    /// The name's bytes, ASCII letters lowercased as the tokenizer does, packed little-endian.
    private static func pack<Bytes: Collection<UInt8>>(_ name: Bytes) -> (UInt64, UInt64) {
        var low: UInt64 = 0
        var high: UInt64 = 0
        var shift: UInt64 = 0
        for (offset, raw) in name.enumerated() {
            let byte = UInt64(raw >= 0x41 && raw <= 0x5A ? raw | 0x20 : raw)
            if offset < 8 { low |= byte << shift } else { high |= byte << (shift - 64) }
            shift += 8
        }
        return (low, high)
    }

    private static func bucket(_ low: UInt64, _ high: UInt64, _ length: Int) -> Int {
        let mixed = (low &* 0x9E37_79B9_7F4A_7C15) ^ (high &* 0xC2B2_AE3D_27D4_EB4F) ^ UInt64(length)
        return Int(truncatingIfNeeded: (mixed &* 0x9E37_79B9_7F4A_7C15) >> UInt64(64 - tableBits))
    }

    /// The slot of the listed name `name` is, byte for byte (no case folding: the table holds
    /// lower-case names, so only those are found). The bytes are copied into the packed words in
    /// one move (little-endian, as `pack` orders them) rather than shifted in one at a time.
    static func exactSlot(_ name: UnsafeBufferPointer<UInt8>, in table: [Entry] = table) -> Int? {
        guard name.count <= maxLength, !name.isEmpty else { return nil }
        #if _endian(little)
        var packed: (UInt64, UInt64) = (0, 0)
        withUnsafeMutableBytes(of: &packed) { $0.copyMemory(from: UnsafeRawBufferPointer(name)) }
        let (low, high) = packed
        #else
        guard !name.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) else { return nil }
        let (low, high) = pack(name)
        #endif
        return entry(low, high, name.count, in: table)?.slot
    }

    /// The table's entry for a packed name, found by linear probing from its bucket.
    private static func entry(_ low: UInt64, _ high: UInt64, _ length: Int, in table: [Entry]) -> Entry? {
        var index = bucket(low, high, length)
        while table[index].length != 0 {
            let entry = table[index]
            if entry.low == low, entry.high == high, entry.length == length { return entry }
            index = (index + 1) & (table.count - 1)
        }
        return nil
    }

    /// The listed name `name` spells (ASCII letters in any case), or no traits and no slot.
    static func info<Bytes: Collection<UInt8>>(_ name: Bytes, in table: [Entry] = table) -> TagNameInfo {
        guard name.count <= maxLength, !name.isEmpty else { return TagNameInfo(traits: [], slot: nil) }
        let (low, high) = pack(name)
        guard let entry = entry(low, high, name.count, in: table) else { return TagNameInfo(traits: [], slot: nil) }
        return TagNameInfo(traits: entry.traits, slot: entry.slot)
    }
}

/// A small integer for each tag name the pre-scans list (`TagNames.slotNames`: the HTML elements
/// a news page is made of), so a tree built from this document can compare tag names as
/// integers: an unequal String comparison is a call into the standard library, and Readability
/// compared tag names about 3,000 times a page.
public enum TagSlot {
    /// Any name not listed, and the empty name of non-elements.
    public static let none = -1
    /// Slots run from 0 to `count - 1`.
    public static var count: Int { TagNames.slotNames.count }

    /// The slot of exactly `name` (lower case, as the tree spells it), or `none`.
    public static func of(_ name: String) -> Int {
        guard !name.isEmpty, name.utf8.count <= TagNames.maxLength else { return none }
        var name = name
        return name.withUTF8 { TagNames.exactSlot($0) } ?? none
    }
}
