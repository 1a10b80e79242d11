
/// Parses and validates the `sources` list; every message names the source.
struct SourceListParser {
    let diag: Diagnostics
    let defaults: SourceDefaults
    let categories: [CategoryConfig]

    static let keys = ["slug", "name", "feed_url", "website_url", "category", "language", "fetch_interval_hours",
                       "max_content_length", "active", "language_detection"]

    func parse(_ nodes: [ConfigNode]) -> [SourceConfig] {
        var sources: [SourceConfig] = []
        var slugLines: [String: Int] = [:]
        var feedLines: [String: (slug: String, line: Int)] = [:]
        for (index, node) in nodes.enumerated() {
            // Label the source before validating it, so even its key errors name it.
            let label = Self.slug(of: node)?.nilIfEmpty.map(FieldRules.printable) ?? "#\(index + 1)"
            guard let map = MappingView(node, section: "source", allowedKeys: Self.keys, source: label, diag) else {
                continue
            }
            // Duplicates are checked on the raw values, so they are found even in invalid entries.
            if let slug = map.rawScalar("slug") {
                let line = map.mark(of: "slug")?.line ?? 0
                if let first = slugLines[slug] {
                    diag.error("duplicate source slug '\(FieldRules.printable(slug))' (first on line \(first), "
                               + "again on line \(line))", at: map.mark(of: "slug"), source: label)
                } else {
                    slugLines[slug] = line
                }
            }
            if let feedURL = map.rawScalar("feed_url") {
                let line = map.mark(of: "feed_url")?.line ?? 0
                if let first = feedLines[feedURL] {
                    diag.error("feed_url is already used by source '\(first.slug)' (line \(first.line)); "
                               + "each feed must be listed once", at: map.mark(of: "feed_url"), source: label)
                } else {
                    feedLines[feedURL] = (label, line)
                }
            }
            guard let source = parseSource(map, label: label) else { continue }
            sources.append(source)
        }
        return sources
    }

    /// The `slug:` scalar of a source entry, read by index (iterating a `Node.Mapping` copies its pairs).
    private static func slug(of node: ConfigNode) -> String? {
        guard let mapping = node.mapping else { return nil }
        for index in mapping.indices where mapping[index].key.scalar?.string == "slug" {
            return mapping[index].value.scalar?.string
        }
        return nil
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

        let feedURL = map.string("feed_url", required: true)
        if let feedURL, let problem = FieldRules.urlProblem(feedURL, field: "feed_url") { report(problem, "feed_url") }

        let websiteURL = map.string("website_url", required: false)
        if let websiteURL, let problem = FieldRules.urlProblem(websiteURL, field: "website_url") {
            report(problem, "website_url")
        }

        let category = map.string("category", required: true)
        if let category, !categories.contains(where: { $0.slug == category }) {
            var known: [String] = []
            for category in categories where !known.contains(category.slug) { known.append(category.slug) }
            var message = "unknown category '\(FieldRules.printable(category))'"
            if let guess = closestKey(to: category, in: known) { message += " (did you mean '\(guess)'?)" }
            report(message + "; known categories: " + known.joined(separator: ", "), "category")
        }

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

extension String {
    var nilIfEmpty: String? { isEmpty ? nil : self }
}
