import HTMLDocument
import PulseModel

/// The mutable tree Readability works on, shaped like the DOM subset Readability.js uses.
/// All links are unretained (`Unmanaged`): the `DOMArena` owns every node, so releasing a
/// 200 000-node chain never recurses through deinit, and traversal costs no refcounting.
final class DNode {
    enum Kind { case element, text, comment, document }

    /// The parsed document's own attribute type, so building the tree shares each element's
    /// attribute array instead of copying it (the copies were ~1% of an extraction).
    typealias Attribute = HTMLDocument.Attribute

    var kind: Kind
    /// Lower-case tag name for elements.
    var tag: String {
        didSet { tagSlot = TagSlot.of(tag) }
    }
    /// `tag` as an integer (`TagSlot`), for the element walks that compare names.
    private(set) var tagSlot: Int
    var attributes: [Attribute] {
        didSet { cachedMatchBytes = nil }
    }
    /// `matchBytes`, made once per node: each grab attempt and cleaning pass asks it again.
    var cachedMatchBytes: [UInt8]?
    /// Never edited in place, so what is measured of it (`textSummary`) stays valid.
    let text: String
    // The links, unretained. Read-only walks step through them as `Unmanaged` values (see `step`):
    // every strong reference taken per step was a retain and a release, the largest single cost
    // of the extraction's many walks. Only the mutations below write them.
    var parentLink: Unmanaged<DNode>?
    var firstChildLink: Unmanaged<DNode>?
    var lastChildLink: Unmanaged<DNode>?
    var nextLink: Unmanaged<DNode>?
    var prevLink: Unmanaged<DNode>?

    var parent: DNode? { parentLink?.takeUnretainedValue() }
    var firstChild: DNode? { firstChildLink?.takeUnretainedValue() }
    var lastChild: DNode? { lastChildLink?.takeUnretainedValue() }
    var next: DNode? { nextLink?.takeUnretainedValue() }
    var prev: DNode? { prevLink?.takeUnretainedValue() }
    /// Readability.js's `node.readability.contentScore`; nil means "not initialised".
    var score: Double?
    /// `_readabilityDataTable`.
    var isDataTable = false
    /// The parsed document's node this element was built from (-1 for elements made later): the
    /// same element in every grab attempt, each of which rebuilds the tree.
    let sourceIndex: Int32
    /// A `<p>` of the markup that `replaceBrs` made a `<div>` (it came to hold paragraphs).
    var wasParagraph = false
    /// The node is a thread's title or follows one in its container (see `markThreadAfterTitle`).
    var followsThreadTitle = false
    /// The element is, or holds, a reply control of a reader thread (see `markReplyControls`).
    var holdsReplyControl = false
    /// Text measurement cache, valid while `cacheEpoch == meter.epoch` (any tree mutation
    /// bumps the epoch; text itself is never edited in place).
    var cachedLength = 0
    var cachedCommas = 0
    var cacheEpoch = -1
    /// A text node's own measurement, made once (see `TextMeter.summary`).
    var textSummary: TextMeter.Summary?
    /// Counts traversal steps for the whole extraction (see `DOMArena.visitLimit`).
    unowned(unsafe) let meter: VisitMeter

    /// `tagSlot` is `TagSlot.of(tag)` when the caller has it already (a parsed element's).
    init(kind: Kind, tag: String = "", tagSlot: Int? = nil, attributes: [Attribute] = [], text: String = "",
         sourceIndex: Int32 = -1, meter: VisitMeter) {
        self.meter = meter
        self.sourceIndex = sourceIndex
        self.kind = kind
        self.tag = tag
        self.tagSlot = kind == .element ? tagSlot ?? TagSlot.of(tag) : TagSlot.none
        self.attributes = attributes
        self.text = text
    }

    var isElement: Bool { kind == .element }

    func attribute(_ name: String) -> String? {
        for attribute in attributes where attribute.name == name { return attribute.value }
        return nil
    }

    func hasAttribute(_ name: String) -> Bool { attributes.contains { $0.name == name } }

    func setAttribute(_ name: String, _ value: String) {
        if let index = attributes.firstIndex(where: { $0.name == name }) {
            attributes[index] = Attribute(name: name, value: value)
        } else {
            attributes.append(Attribute(name: name, value: value))
        }
    }

    func removeAttribute(_ name: String) { attributes.removeAll { $0.name == name } }

    var className: String { attribute("class") ?? "" }
    var id: String { attribute("id") ?? "" }

    // MARK: Element navigation

    // The three below step over text nodes through the unretained links and take a reference
    // only to the element they return: a strong reference per node stepped over was a retain and
    // a release each, and the walks that call them visit every element of the page.
    var firstElementChild: DNode? { Self.elementLink(from: firstChildLink, forward: true)?.takeUnretainedValue() }

    var nextElementSibling: DNode? { Self.elementLink(from: nextLink, forward: true)?.takeUnretainedValue() }

    var previousElementSibling: DNode? { Self.elementLink(from: prevLink, forward: false)?.takeUnretainedValue() }

    /// The first element at or after (or before) `link` among its siblings, unretained.
    static func elementLink(from link: Unmanaged<DNode>?, forward: Bool) -> Unmanaged<DNode>? {
        var cursor = link
        while let current = cursor {
            let (isElement, following) = current._withUnsafeGuaranteedRef {
                ($0.kind == .element, forward ? $0.nextLink : $0.prevLink)
            }
            if isElement { return current }
            cursor = following
        }
        return nil
    }

    var childNodes: [DNode] {
        var result: [DNode] = []
        var child = firstChild
        while let current = child { result.append(current); child = current.next }
        return result
    }

    var children: [DNode] { childNodes.filter(\.isElement) }

    var elementChildCount: Int {
        var count = 0
        var cursor = Self.elementLink(from: firstChildLink, forward: true)
        while let current = cursor {
            count += 1
            cursor = Self.elementLink(from: current._withUnsafeGuaranteedRef { $0.nextLink }, forward: true)
        }
        return count
    }

    // MARK: Mutation

    func remove() {
        guard let parent else { return }
        meter.epoch &+= 1
        if let prev { prev.nextLink = nextLink } else { parent.firstChildLink = nextLink }
        if let next { next.prevLink = prevLink } else { parent.lastChildLink = prevLink }
        parentLink = nil
        nextLink = nil
        prevLink = nil
    }

    func appendChild(_ child: DNode) {
        child.remove()
        meter.epoch &+= 1
        appendNewChild(child)
    }

    /// The links of `appendChild`, for a node with no parent and no siblings. The tree builder
    /// calls it for nodes made a moment ago: nothing to unlink, and no measurement cached yet to
    /// invalidate, so the shared meter is not written per node (each write was a dynamic
    /// exclusivity check).
    fileprivate func appendNewChild(_ child: DNode) {
        child.parentLink = Unmanaged.passUnretained(self)
        child.prevLink = lastChildLink
        if let lastChildLink { lastChildLink.takeUnretainedValue().nextLink = Unmanaged.passUnretained(child) } else {
            firstChildLink = Unmanaged.passUnretained(child)
        }
        lastChildLink = Unmanaged.passUnretained(child)
    }

    func insertBefore(_ child: DNode, _ reference: DNode?) {
        guard let reference else { appendChild(child); return }
        child.remove()
        meter.epoch &+= 1
        let link = Unmanaged.passUnretained(child)
        child.parentLink = Unmanaged.passUnretained(self)
        child.nextLink = Unmanaged.passUnretained(reference)
        child.prevLink = reference.prevLink
        if let previous = reference.prev { previous.nextLink = link } else { firstChildLink = link }
        reference.prevLink = link
    }

    /// Puts `replacement` where `self` is; `self` leaves the tree.
    func replace(with replacement: DNode) {
        guard let parent, replacement !== self else { return }
        let anchor = next
        remove()
        parent.insertBefore(replacement, anchor)
    }

    /// Whether `node` lies inside this element, looking no higher than `root` nor more than
    /// `levels` up (the wrappers of one line: `<p><b><font>`), so asking it of every line of a
    /// deep page stays linear.
    func isAncestor(of node: DNode, within root: DNode, levels: Int = 4) -> Bool {
        var current = node.parent
        for _ in 0..<levels {
            guard let ancestor = current, ancestor !== root else { return false }
            if ancestor === self { return true }
            current = ancestor.parent
        }
        return false
    }

    /// The closest ancestor that passes `test`, looking no higher than `root` (nil: the whole way).
    func ancestor(within root: DNode? = nil, where test: (DNode) -> Bool) -> DNode? {
        var current = parent
        while let ancestor = current, ancestor !== root {
            if test(ancestor) { return ancestor }
            current = ancestor.parent
        }
        return nil
    }

    // MARK: Traversal

    /// Next node in document order inside `root` (all kinds), without recursion.
    func following(within root: DNode, skipChildren: Bool = false) -> DNode? {
        Self.step(from: .passUnretained(self), within: .passUnretained(root), skipChildren: skipChildren)?.takeUnretainedValue()
    }

    /// `following(within:)` without taking a reference: the arena keeps every node alive.
    static func step(from node: Unmanaged<DNode>, within root: Unmanaged<DNode>, skipChildren: Bool = false) -> Unmanaged<DNode>? {
        node._withUnsafeGuaranteedRef { start in
            start.meter.visits &+= 1
            if !skipChildren, let firstChild = start.firstChildLink { return firstChild }
            var current = node
            while current.toOpaque() != root.toOpaque() {
                let (next, parent) = current._withUnsafeGuaranteedRef { ($0.nextLink, $0.parentLink) }
                if let next { return next }
                guard let parent else { return nil }
                current = parent
            }
            return nil
        }
    }

    /// Calls `body` with each node after this one inside it, in document order, until it returns
    /// false. Nothing is retained; `body` must not remove nodes (use `elements` for that).
    func forEachDescendant(_ body: (DNode) -> Bool) {
        let root = Unmanaged.passUnretained(self)
        var cursor = Self.step(from: root, within: root)
        while let current = cursor {
            guard current._withUnsafeGuaranteedRef(body) else { return }
            cursor = Self.step(from: current, within: root)
        }
    }

    /// All descendant elements named in `tags`, in document order.
    func elements(_ tags: TagSet) -> [DNode] {
        var result: [DNode] = []
        forEachDescendant { node in
            if tags.contains(node) { result.append(node) }
            return true
        }
        return result
    }

    func elements(_ tags: [String]) -> [DNode] { elements(TagSet(tags)) }

    func elements(_ tag: String) -> [DNode] {
        let name = OneTag(tag)
        var result: [DNode] = []
        forEachDescendant { node in
            if name.matches(node) { result.append(node) }
            return true
        }
        return result
    }

    /// The first descendant element named `tag`, in document order; the walk stops there.
    func firstElement(_ tag: String) -> DNode? { firstElement(where: OneTag(tag).matches) }

    func firstElement(where predicate: (DNode) -> Bool) -> DNode? {
        var found: DNode?
        forEachDescendant { node in
            if node.kind == .element, predicate(node) { found = node; return false }
            return true
        }
        return found
    }

    func countElements(_ tag: String) -> Int {
        let name = OneTag(tag)
        var count = 0
        forEachDescendant { node in
            if name.matches(node) { count += 1 }
            return true
        }
        return count
    }

    func hasDescendant(where predicate: (DNode) -> Bool) -> Bool {
        var found = false
        forEachDescendant { node in
            found = predicate(node)
            return !found
        }
        return found
    }

    /// DOM `textContent`.
    var textContent: String {
        if kind == .text { return text }
        var result = ""
        forEachDescendant { node in
            if node.kind == .text { result += node.text }
            return true
        }
        return result
    }
}

/// Readability.js is superlinear on deep trees (text density sums over nested matches), so
/// every traversal step is counted and the extraction gives up past a budget instead of
/// spinning on hostile markup.
/// The same checks also hold the extraction to a CPU budget (read every 1024 checks), so a page
/// that passed the parse limits still costs at most about a second.
final class VisitMeter {
    var visits = 0
    /// Bumped on every tree mutation; invalidates cached text measurements.
    var epoch = 0
    let limit: Int
    private let budget: CPUBudget
    private var checks = 0
    private(set) var overCPUBudget = false

    init(limit: Int, cpuSeconds: Double = 1.0) {
        self.limit = limit
        budget = CPUBudget(seconds: cpuSeconds)
    }

    var exhausted: Bool {
        if visits > limit || overCPUBudget { return true }
        checks &+= 1
        if checks & 1023 == 0, budget.exceeded() { overCPUBudget = true }
        return overCPUBudget
    }
}

/// Owns every node of one extraction.
final class DOMArena {
    private(set) var nodes: [DNode] = []
    let meter: VisitMeter

    init(visitLimit: Int = 20_000_000) {
        meter = VisitMeter(limit: visitLimit)
    }

    func make(_ kind: DNode.Kind, tag: String = "", attributes: [DNode.Attribute] = [], text: String = "") -> DNode {
        let node = DNode(kind: kind, tag: tag, attributes: attributes, text: text, meter: meter)
        nodes.append(node)
        return node
    }

    func element(_ tag: String) -> DNode { make(.element, tag: tag) }

    /// Copies an `HTMLDocument` (comments dropped; they never matter to Readability).
    func build(from document: HTMLDocument) -> DNode {
        let root = make(.document)
        var built: [DNode] = []
        built.reserveCapacity(document.nodes.count)
        var mapped = [Unmanaged<DNode>?](repeating: nil, count: document.nodes.count)
        if !mapped.isEmpty { mapped[0] = Unmanaged.passUnretained(root) }
        // Read through the buffer, field by field: copying each `Node` out of the array retained
        // and released all four of its references per node. `built` keeps every DNode alive, so
        // `mapped` holds them unretained; they join the arena's `nodes` at the end, in one append.
        document.nodes.withUnsafeBufferPointer { source in
            for index in 1..<max(source.count, 1) {
                guard let parentID = source[index].parent, parentID.index < index,
                      let parent = mapped[parentID.index]?.takeUnretainedValue() else { continue }
                let node: DNode
                switch source[index].kind {
                case .element:
                    node = DNode(kind: .element, tag: source[index].tag, tagSlot: source[index].tagSlot,
                                 attributes: source[index].attributes, sourceIndex: Int32(truncatingIfNeeded: index), meter: meter)
                case .text:
                    node = DNode(kind: .text, text: source[index].text, meter: meter)
                case .comment, .document:
                    continue
                }
                built.append(node)
                parent.appendNewChild(node)
                mapped[index] = Unmanaged.passUnretained(node)
            }
        }
        nodes.append(contentsOf: built)
        meter.epoch &+= 1
        return root
    }
}
