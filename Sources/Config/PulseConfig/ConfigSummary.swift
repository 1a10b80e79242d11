/// Counts shown by `--check-config`.
public struct ConfigSummary: Sendable, Equatable, CustomStringConvertible {
    public struct Count: Sendable, Equatable {
        public var key: String
        public var count: Int
    }

    public var version: Int
    public var categoryCount: Int
    public var totalSources: Int
    public var activeSources: Int
    public var inactiveSources: Int
    /// Most sources first, ties by code.
    public var byLanguage: [Count]
    /// Every category in display order, including empty ones.
    public var byCategory: [Count]
    /// articles, podcast, video.
    public var byKind: [Count]

    public init(_ config: PulseConfiguration) {
        version = config.version
        categoryCount = config.categories.count
        totalSources = config.sources.count
        activeSources = config.activeSources.count
        inactiveSources = totalSources - activeSources
        // Counted in a list, not a dictionary: the codes are few (checked ISO 639-1), and in a
        // one-shot --check-config a `[String: ...]` costs a runtime search of every protocol
        // conformance in the binary for String's Hashable (see `lines(_:)`).
        var languages: [Count] = []
        for source in config.sources {
            if let index = languages.firstIndex(where: { $0.key == source.language }) {
                languages[index].count += 1
            } else {
                languages.append(Count(key: source.language, count: 1))
            }
        }
        byLanguage = languages.sorted { ($1.count, $0.key) < ($0.count, $1.key) }
        byCategory = config.categories.map { category in
            Count(key: category.slug, count: config.sources.count { $0.categorySlug == category.slug })
        }
        byKind = SourceKind.allCases.map { kind in
            Count(key: kind.rawValue, count: config.sources.count { $0.kind == kind })
        }
    }

    /// A stable, line-oriented text (the same input always gives the same bytes).
    public var text: String {
        var lines = [
            "configuration version \(version)",
            "categories: \(categoryCount)",
            "sources: \(totalSources) (\(activeSources) active, \(inactiveSources) inactive)",
            "by kind: " + Self.lines(byKind.map { "\($0.key) \($0.count)" }, separator: ", "),
            "by language:",
        ]
        lines += table(byLanguage)
        lines.append("by category:")
        lines += table(byCategory)
        return Self.lines(lines, separator: "\n")  // no trailing newline: callers `print` it
    }

    /// `joined(separator:)` by hand: the generic one looks up its element's associated types at
    /// run time, and the first lookup of a conformance scans every conformance record of this
    /// 100 MB binary (about 0.1 ms of a 5 ms `--check-config`, page faults included).
    private static func lines(_ parts: [String], separator: String) -> String {
        var text = ""
        for (index, part) in parts.enumerated() {
            if index > 0 { text += separator }
            text += part
        }
        return text
    }

    public var description: String { text }

    private func table(_ counts: [Count]) -> [String] {
        let width = counts.map(\.key.count).max() ?? 0
        let numberWidth = counts.map { String($0.count).count }.max() ?? 0
        return counts.map { count in
            // Padded by hand: Foundation's padding(toLength:) goes through NSString.
            let key = count.key + String(repeating: " ", count: width - count.key.count)
            let number = String(count.count)
            return "  \(key)  \(String(repeating: " ", count: numberWidth - number.count))\(number)"
        }
    }
}

extension PulseConfiguration {
    public func summary() -> String { ConfigSummary(self).text }
}
