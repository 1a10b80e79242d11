import HTMLDocument

/// A set of tag names, asked about a node by its tag slot (`TagSlot`): one bit test for every
/// listed name, instead of hashing the name (`Set<String>`) or comparing it with each member
/// (`[String]`, where every unequal String comparison is a call into the standard library; the
/// grab's two lists cost ~330 instructions a node that way). Members without a slot are
/// compared by name, and only nodes without a slot can be one of them.
struct TagSet: Sendable {
    private var bits: [UInt64]
    private var unlisted: [String] = []
    let names: [String]

    init(_ names: [String]) {
        self.names = names
        bits = [UInt64](repeating: 0, count: TagSlot.count / 64 + 1)
        for name in names {
            let slot = TagSlot.of(name)
            if slot == TagSlot.none { unlisted.append(name) } else { bits[slot >> 6] |= 1 << UInt64(slot & 63) }
        }
    }

    func contains(_ node: DNode) -> Bool {
        let slot = node.tagSlot
        if slot != TagSlot.none { return bits[slot >> 6] & (1 << UInt64(slot & 63)) != 0 }
        return node.kind == .element && !unlisted.isEmpty && unlisted.contains(node.tag)
    }
}

/// One tag name, compared by slot when it has one: `TagSet`'s test for a single name, without
/// the set's bit array (the single-name walks run thousands of times a page).
struct OneTag {
    let name: String
    let slot: Int

    init(_ name: String) {
        self.name = name
        slot = TagSlot.of(name)
    }

    func matches(_ node: DNode) -> Bool {
        slot != TagSlot.none ? node.tagSlot == slot : node.kind == .element && node.tag == name
    }
}
