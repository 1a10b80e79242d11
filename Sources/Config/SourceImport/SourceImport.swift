import AddressPolicy
import CanonicalURL
import PulseConfig
import PulseModel

/// What an import validates its rows against.
public struct ImportSettings: Sendable {
    /// feeds.yaml's `defaults:` (fetch interval, content cap, language detection).
    public var defaults: SourceDefaults
    /// The categories a row may name: the config file's and the database's.
    public var categories: [CategoryConfig]
    /// The sources already in the database.
    public var stored: [SourceDefinition]
    /// `--category`: for rows that name no category (and, in OPML, sit in no folder named after one).
    public var defaultCategory: String?
    /// `--language`: for rows that name no language.
    public var defaultLanguage: String?
    /// `--allow-networks`: where a row's IP-literal URL host may be (an intranet feed).
    public var allowedNetworks: [CIDR] = []

    public init(defaults: SourceDefaults, categories: [CategoryConfig], stored: [SourceDefinition]) {
        (self.defaults, self.categories, self.stored) = (defaults, categories, stored)
    }
}

/// An import file's rows as sources: what a row leaves out is filled in (slug, category, language),
/// then every row is validated as a feeds.yaml source (`SourceTable`). All problems come back at
/// once, in line order; the sources only when there is none.
public enum SourceImport {
    public static func sources(in file: SourceFile, settings: ImportSettings) -> Result<[SourceConfig], ConfigError> {
        var issues = file.issues
        var rows = file.rows.map(\.row)
        let storedByFeed = slugsByFeed(settings.stored)
        /// The stored sources of a feed, by its identity (not computed against an empty database).
        func storedSlugs(_ feed: String?) -> [String]? {
            guard let feed, !storedByFeed.isEmpty else { return nil }
            return storedByFeed[CanonicalURL.feedIdentity(feed)]
        }
        var taken = SlugRule.Taken(settings.stored.map(\.slug))
        for row in rows { if let slug = row.value("slug") { taken.insert(slug) } }

        for index in rows.indices {
            let folders = file.rows[index].folders
            if rows[index].value("slug") == nil {
                let feed = rows[index].value("feed_url")
                let slug = storedSlugs(feed)?.first
                    ?? taken.unused(SlugRule.base(name: rows[index].value("name"), feedURL: feed))
                taken.insert(slug)
                rows[index].set("slug", to: slug)
            }
            let label = rows[index].value("slug")
            if rows[index].value("category") == nil {
                if let category = folders.lazy.compactMap({ SlugRule.category(named: $0, in: settings.categories) }).first
                    ?? settings.defaultCategory {
                    rows[index].set("category", to: category)
                } else {
                    let reason = file.format != .opml ? "the row names none"
                        : folders.isEmpty ? "the outline is in no folder"
                        : "its folder" + (folders.count == 1 ? " " : "s ") + folders.map { "'\($0)'" }.joined(separator: ", ")
                            + (folders.count == 1 ? " names" : " name") + " no known category"
                    issues.append(ConfigIssue(file: file.name, line: rows[index].line, source: label,
                                              message: "no category: \(reason), and no --category SLUG was given"))
                    // Reported: a stand-in keeps the rules below from reporting the row's category again.
                    if let any = settings.categories.first { rows[index].set("category", to: any.slug) }
                }
            }
            if rows[index].value("language") == nil {
                if let language = settings.defaultLanguage {
                    rows[index].set("language", to: language)
                } else {
                    issues.append(ConfigIssue(file: file.name, line: rows[index].line, source: label,
                                              message: "no language: the row names none, and no --language CODE was given"))
                    rows[index].set("language", to: "en")  // a stand-in, as for the category
                }
            }
        }

        // A feed the database already has under a slug this file does not list would be fetched twice.
        let listed = Set(rows.compactMap { $0.value("slug") })
        for row in rows {
            guard let feed = row.cells.first(where: { $0.key == "feed_url" }),
                  let other = storedSlugs(feed.value)?.first(where: { !listed.contains($0) })
            else { continue }
            issues.append(ConfigIssue(
                file: file.name, line: feed.line, source: row.value("slug"),
                message: "feed_url is already used by source '\(other)' in the database; each feed must be listed once"))
        }

        let validated = SourceTable.validate(rows, file: file.name, defaults: settings.defaults,
                                             categories: settings.categories, allowedNetworks: settings.allowedNetworks)
        issues += validated.issues
        guard issues.isEmpty else { return .failure(ConfigError(file: file.name, issues: issues.inLineOrder)) }
        return .success(validated.sources)
    }

    /// Each stored feed (`CanonicalURL.feedIdentity` of its URL) with the slugs that have it, in slug order.
    private static func slugsByFeed(_ stored: [SourceDefinition]) -> [String: [String]] {
        var slugs: [String: [String]] = [:]
        for source in stored.sorted(by: { $0.slug < $1.slug }) {
            slugs[CanonicalURL.feedIdentity(source.feedURL), default: []].append(source.slug)
        }
        return slugs
    }
}
