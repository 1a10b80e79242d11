import AddressPolicy
import CanonicalURL
import Yams

/// Parses and validates the `sources` list; every message names the source.
struct SourceListParser {
    let diag: Diagnostics
    let defaults: SourceDefaults
    let categories: [CategoryConfig]
    /// The operator's exemptions from the address policy (`--allow-networks`): an intranet feed.
    let allowedNetworks: [CIDR]

    static let keys = ["slug", "name", "feed_url", "website_url", "category", "language", "fetch_interval_hours",
                       "max_content_length", "active", "language_detection"]

    func parse(_ nodes: [Node], in list: Mark? = nil) -> [SourceConfig] {
        // An entry that is an alias (`- *name`) is composed by Yams as the anchored node itself,
        // marked where the anchor is: before the list, or at or before an earlier entry. It is
        // refused like its anchor, and (as an alias is never expanded) neither labelled nor counted.
        var anchors: Set<ObjectIdentifier> = []
        let aliases = nodes.map { node in
            guard let anchor = node.anchor else { return false }
            return !anchors.insert(ObjectIdentifier(anchor)).inserted || precedes(node.mark, list)
        }
        // Duplicates are checked on the raw values, so they are found even in invalid entries;
        // they are found before the walk (which reports them where it always did).
        let slugs = nodes.map { rawValue(of: $0, key: "slug") }
        let feeds = nodes.map { rawValue(of: $0, key: "feed_url") }
        let earlierSlug = earlierDuplicates(slugs.map { $0?.text })
        // One feed written two ways (host case, a default port, a fragment) is one feed.
        let earlierFeed = earlierDuplicates(feeds.map { $0.map { CanonicalURL.feedIdentity($0.text) } })
        var labels: [String] = []
        labels.reserveCapacity(nodes.count)
        var sources: [SourceConfig] = []
        for (index, node) in nodes.enumerated() {
            // Label the source before validating it, so even its key errors name it.
            let slug = aliases[index] ? nil : Self.slug(of: node)
            let label = slug.flatMap { $0.isEmpty ? nil : FieldRules.printable($0) } ?? "#\(index + 1)"
            labels.append(label)
            guard let map = MappingView(node, section: "source", allowedKeys: Self.keys, source: label, diag) else {
                continue
            }
            if let slug = slugs[index], let first = earlierSlug[index], let firstLine = slugs[first]?.line {
                diag.error("duplicate source slug '\(FieldRules.printable(slug.text))' (first on line \(firstLine), "
                           + "again on line \(slug.line))", at: map.mark(of: "slug"), source: label)
            }
            if let feed = feeds[index], let first = earlierFeed[index], let earlier = feeds[first] {
                let spelling = earlier.text == feed.text ? "" : ", as '\(FieldRules.printable(String(earlier.text.prefix(200))))'"
                diag.error("feed_url is already used by source '\(labels[first])' (line \(earlier.line)\(spelling)); "
                           + "each feed must be listed once", at: map.mark(of: "feed_url"), source: label)
            }
            guard let source = parseSource(map, label: label) else { continue }
            sources.append(source)
        }
        return sources
    }

    /// `MappingView.rawScalar(key)` and the line of its value, for an entry `MappingView` accepts
    /// (a mapping, not anchored; the key a plain, unanchored scalar), read without reporting.
    private func rawValue(of node: Node, key: String) -> (text: String, line: Int)? {
        guard node.anchor == nil, let mapping = node.mapping else { return nil }
        for index in mapping.indices {
            let pair = mapping[index]
            guard pair.key.anchor == nil, pair.key.scalar?.string == key else { continue }
            guard !Self.isAlias(pair.value, after: pair.key), let text = pair.value.scalar?.string else { return nil }
            return (text, diag.line(pair.value.mark) ?? 0)
        }
        return nil
    }

    /// The `slug:` scalar of a source entry.
    private static func slug(of node: Node) -> String? {
        guard let mapping = node.mapping else { return nil }
        for index in mapping.indices where mapping[index].key.scalar?.string == "slug" {
            let pair = mapping[index]
            return isAlias(pair.value, after: pair.key) ? nil : pair.value.scalar?.string
        }
        return nil
    }

    /// A value that is an alias: Yams gives it its anchor's mark, which comes before its key.
    private static func isAlias(_ value: Node, after key: Node) -> Bool {
        value.anchor != nil && precedes(value.mark, key.mark)
    }

    /// nil when a required field is missing or invalid (already reported).
    private func parseSource(_ map: MappingView, label: String) -> SourceConfig? {
        var valid = true
        func report(_ message: String, _ key: String) {
            diag.error(message, at: map.mark(of: key), source: label)
            valid = false
        }

        let slug = map.string("slug", required: true)
        if let slug, let problem = FieldRules.slugProblem(slug) { report(problem, "slug") }

        let name = map.string("name", required: true)
        if let name, let problem = FieldRules.nameProblem(name, maxLength: FieldRules.maxSourceNameLength) {
            report(problem, "name")
        }

        /// The URL as it is kept (`StoredURL`'s form), or nil after reporting.
        func url(_ key: String, required: Bool) -> String? {
            guard let raw = map.string(key, required: required) else { return nil }
            switch FieldRules.storedURL(raw, field: key, allowing: allowedNetworks) {
            case .success(let url): return url
            case .failure(let problem): report(problem.message, key); return nil
            }
        }
        let feedURL = url("feed_url", required: true)
        let websiteURL = url("website_url", required: false)

        let category = map.string("category", required: true)
        if let category, let problem = SourceTable.categoryProblem(category, in: categories) { report(problem, "category") }

        let language = map.string("language", required: true)
        if let language, let problem = FieldRules.languageProblem(language) { report(problem, "language") }

        let interval = map.int("fetch_interval_hours", default: defaults.fetchIntervalHours,
                               range: SourceDefaults.fetchIntervalRange)
        let maxContent: Int? = map.node("max_content_length") == nil ? nil
            : map.int("max_content_length", default: defaults.maxContentLength,
                      range: 1...SourceDefaults.absoluteMaxContentLength)
        // Only an explicit `active:` decides; without one the database keeps its value (see SourceSync).
        let isActive: Bool? = map.node("active") == nil ? nil : map.bool("active", default: true)
        let detection = map.bool("language_detection", default: defaults.languageDetection)

        guard valid, let slug, let name, let feedURL, let category, let language else { return nil }
        return SourceConfig(
            slug: slug, name: name, feedURL: feedURL, websiteURL: websiteURL, categorySlug: category,
            language: language, fetchIntervalHours: interval, maxContentLength: maxContent, isActive: isActive,
            languageDetection: detection)
    }
}

/// Whether `mark` comes before `other` in the text.
func precedes(_ mark: Mark?, _ other: Mark?) -> Bool {
    guard let mark, let other else { return false }
    return (mark.line, mark.column) < (other.line, other.column)
}

/// For each text, the position of the first earlier equal one (nil for a first occurrence or no
/// text). A small open-addressing table of positions, by hand, instead of a `[String: Int]` or a
/// sort: in a one-shot `--check-config` the first `Dictionary` keyed by String (and the standard
/// sort's array of runs) each cost a run-time search of every protocol conformance in this binary,
/// about 0.1-0.2 ms apiece with their page faults. `hashValue` is seeded per process, so a file
/// cannot choose colliding values.
func earlierDuplicates(_ texts: [String?]) -> [Int?] {
    var earlier = [Int?](repeating: nil, count: texts.count)
    // A handful (a mapping's keys) is compared pairwise, without building a table.
    if texts.count <= 8 {
        for index in texts.indices {
            guard let text = texts[index] else { continue }
            earlier[index] = texts[..<index].firstIndex { $0 == text }
        }
        return earlier
    }
    var capacity = 16
    while capacity < 2 * texts.count { capacity *= 2 }
    var positions = [Int](repeating: -1, count: capacity)
    for (index, text) in texts.enumerated() {
        guard let text else { continue }
        var slot = text.hashValue & (capacity - 1)
        while positions[slot] >= 0, earlier[index] == nil {
            if texts[positions[slot]] == text {
                earlier[index] = positions[slot]
            } else {
                slot = (slot + 1) & (capacity - 1)
            }
        }
        if earlier[index] == nil { positions[slot] = index }
    }
    return earlier
}
