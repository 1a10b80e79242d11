import AddressPolicy
import Glibc
import PulseModel
import TextSupport
import Yams

/// Loads and validates feeds.yaml.
public enum ConfigLoader {
    /// Where the file is looked for when no path is given, in order.
    public static let defaultSearchPaths = ["feeds.yaml", "/etc/pulse-ingest/feeds.yaml"]
    /// A real feeds.yaml is tens of KiB; anything this big is a mistake or an attack.
    public static let maxFileBytes = 4 * 1024 * 1024

    /// The explicit path if given (even when missing, so `load` can report it), else the first
    /// default location that exists, else nil.
    public static func resolvePath(explicit: String?, fileExists: (String) -> Bool) -> String? {
        if let explicit, !explicit.isEmpty { return explicit }
        return defaultSearchPaths.first(where: fileExists)
    }

    /// `allowedNetworks` are the operator's exemptions from the address policy (`--allow-networks`):
    /// a source URL whose host is an IP address in one of them is accepted, as the fetcher reaches it.
    public static func load(path: String, allowedNetworks: [CIDR] = []) throws -> PulseConfiguration {
        let bytes: [UInt8]
        switch LocalFile.contents(of: path, limit: maxFileBytes) {
        case .success(let read):
            bytes = read
        case .failure(.tooLarge):
            throw ConfigError(file: path, message: "configuration file is larger than \(maxFileBytes) bytes")
        case .failure(.unreadable(let code)):
            throw ConfigError(file: path, message: "cannot read configuration file '\(path)': \(readFailureReason(code))")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ConfigError(file: path, message: "configuration file is not valid UTF-8")
        }
        return try parse(yaml: text, file: path, allowedNetworks: allowedNetworks)
    }

    /// Parses and validates; `file` is only used in messages.
    public static func parse(yaml: String, file: String, allowedNetworks: [CIDR] = []) throws -> PulseConfiguration {
        guard yaml.utf8.count <= maxFileBytes else {
            throw ConfigError(file: file, message: "configuration file is larger than \(maxFileBytes) bytes")
        }
        let diag = Diagnostics(file: file)
        // nil: no document; .some(nil): the walk stopped at the top level.
        let walked: PulseConfiguration??
        do {
            walked = try YAMLDocument.reading(yaml) { root in root.map { ConfigParser(diag: diag, allowedNetworks: allowedNetworks).parseRoot($0) } }
        } catch {
            throw ConfigError(file: file, line: error.line, message: error.message)
        }
        guard let walked else {
            throw ConfigError(file: file, message: "configuration file is empty (expected 'version' and 'sources')")
        }
        guard let config = walked, diag.issues.isEmpty else { throw ConfigError(file: file, issues: diag.issues.inLineOrder) }
        return config
    }
}

/// Walks the composed tree section by section.
struct ConfigParser {
    let diag: Diagnostics
    let allowedNetworks: [CIDR]

    static let rootKeys = ["version", "defaults", "fetch", "schedule", "enrichment", "retention", "prune_unlisted",
                           "categories", "sources", "websub"]

    func parseRoot(_ root: Node) -> PulseConfiguration? {
        guard let map = MappingView(root, section: "top level", allowedKeys: Self.rootKeys, diag) else { return nil }
        var config = PulseConfiguration()
        if map.has("version") {
            let version = map.int("version", default: 1, range: Int.min...Int.max)
            if version != 1 {
                diag.error("unsupported 'version' \(version): this pulse-ingest reads version 1",
                           at: map.mark(of: "version"))
            }
        } else {
            diag.error("missing required key 'version' (use 'version: 1')", at: map.mark)
        }
        if let node = map.node("defaults") { config.defaults = parseDefaults(node) }
        if let node = map.node("fetch") { config.fetch = parseFetch(node) }
        if let node = map.node("schedule") { config.schedule = parseSchedule(node) }
        if let node = map.node("enrichment") { config.enrichment = parseEnrichment(node) }
        if let node = map.node("retention") { config.retention = parseRetention(node) }
        if let node = map.node("websub") { config.websub = parseWebSub(node, schedule: config.schedule) }
        config.pruneUnlisted = map.bool("prune_unlisted", default: false)
        if map.has("categories") {
            config.categories = parseCategories(map.sequence("categories", required: true) ?? [], at: map.mark(of: "categories"))
        }
        let sourceNodes = map.sequence("sources", required: true) ?? []
        config.sources = SourceListParser(diag: diag, defaults: config.defaults, categories: config.categories,
                                          allowedNetworks: allowedNetworks)
            .parse(sourceNodes, in: map.mark(of: "sources"))
        return config
    }

    private func parseDefaults(_ node: Node) -> SourceDefaults {
        let keys = ["fetch_interval_hours", "max_content_length", "language_detection"]
        guard let map = MappingView(node, section: "defaults", allowedKeys: keys, diag) else { return SourceDefaults() }
        var defaults = SourceDefaults()
        defaults.fetchIntervalHours = map.int("fetch_interval_hours", default: defaults.fetchIntervalHours,
                                              range: SourceDefaults.fetchIntervalRange)
        defaults.maxContentLength = map.int("max_content_length", default: defaults.maxContentLength,
                                            range: 1...SourceDefaults.absoluteMaxContentLength)
        defaults.languageDetection = map.bool("language_detection", default: defaults.languageDetection)
        return defaults
    }

    private func parseFetch(_ node: Node) -> FetchSettings {
        let keys = ["user_agent", "connect_timeout_seconds", "total_timeout_seconds", "low_speed_bytes_per_second",
                    "low_speed_seconds", "max_concurrent_fetches", "max_per_host", "per_host_requests_per_second",
                    "feed_body_limit_bytes", "page_body_limit_bytes", "image_head_limit_bytes", "max_items_per_feed",
                    "allow_https_downgrade"]
        let base = FetchSettings()
        guard let map = MappingView(node, section: "fetch", allowedKeys: keys, diag) else { return base }
        let oneGiB = 1 << 30
        var fetch = base
        fetch.connectTimeoutSeconds = map.int("connect_timeout_seconds", default: base.connectTimeoutSeconds, range: 1...300)
        fetch.totalTimeoutSeconds = map.int("total_timeout_seconds", default: base.totalTimeoutSeconds, range: 1...3600)
        fetch.lowSpeedBytesPerSecond = map.int("low_speed_bytes_per_second", default: base.lowSpeedBytesPerSecond,
                                               range: 1...oneGiB)
        fetch.lowSpeedSeconds = map.int("low_speed_seconds", default: base.lowSpeedSeconds, range: 1...3600)
        fetch.maxConcurrentFetches = map.int("max_concurrent_fetches", default: base.maxConcurrentFetches, range: 1...256)
        fetch.maxPerHost = map.int("max_per_host", default: base.maxPerHost, range: 1...64)
        fetch.perHostRequestsPerSecond = map.double("per_host_requests_per_second",
                                                    default: base.perHostRequestsPerSecond, range: 0.001...1000)
        fetch.feedBodyLimitBytes = map.int("feed_body_limit_bytes", default: base.feedBodyLimitBytes, range: 1...oneGiB)
        fetch.pageBodyLimitBytes = map.int("page_body_limit_bytes", default: base.pageBodyLimitBytes, range: 1...oneGiB)
        fetch.imageHeadLimitBytes = map.int("image_head_limit_bytes", default: base.imageHeadLimitBytes, range: 1...oneGiB)
        fetch.maxItemsPerFeed = map.int("max_items_per_feed", default: base.maxItemsPerFeed, range: 1...100_000)
        fetch.allowHTTPSDowngrade = map.bool("allow_https_downgrade", default: base.allowHTTPSDowngrade)
        if let agent = map.string("user_agent", required: false) {
            if let problem = userAgentProblem(agent) {
                diag.error("'user_agent' \(problem)", at: map.mark(of: "user_agent"))
            } else {
                fetch.userAgent = agent
            }
        }
        if fetch.connectTimeoutSeconds > fetch.totalTimeoutSeconds {
            diag.error("'connect_timeout_seconds' (\(fetch.connectTimeoutSeconds)) must not exceed "
                       + "'total_timeout_seconds' (\(fetch.totalTimeoutSeconds))", at: map.mark(of: "connect_timeout_seconds"))
        }
        if fetch.maxPerHost > fetch.maxConcurrentFetches {
            diag.error("'max_per_host' (\(fetch.maxPerHost)) must not exceed 'max_concurrent_fetches' "
                       + "(\(fetch.maxConcurrentFetches))", at: map.mark(of: "max_per_host"))
        }
        return fetch
    }

    private func parseEnrichment(_ node: Node) -> EnrichmentConfig {
        var enrichment = EnrichmentConfig()
        let keys = ["enabled", "concurrency", "per_source_budget_seconds"]
        guard let map = MappingView(node, section: "enrichment", allowedKeys: keys, diag) else { return enrichment }
        enrichment.enabled = map.bool("enabled", default: enrichment.enabled)
        enrichment.concurrency = map.int("concurrency", default: enrichment.concurrency, range: 1...64)
        enrichment.perSourceBudgetSeconds = map.int("per_source_budget_seconds", default: enrichment.perSourceBudgetSeconds,
                                                    range: 1...3600)
        return enrichment
    }

    private func parseSchedule(_ node: Node) -> ScheduleSettings {
        var schedule = ScheduleSettings()
        guard let map = MappingView(node, section: "schedule",
                                    allowedKeys: ["min_interval_minutes", "max_interval_hours", "database_retry_seconds"], diag)
        else { return schedule }
        schedule.minIntervalMinutes = map.int("min_interval_minutes", default: schedule.minIntervalMinutes, range: 1...10_080)
        schedule.maxIntervalHours = map.int("max_interval_hours", default: schedule.maxIntervalHours, range: 1...168)
        schedule.databaseRetrySeconds = map.int("database_retry_seconds", default: schedule.databaseRetrySeconds,
                                                range: 1...600)
        if schedule.minIntervalMinutes > schedule.maxIntervalHours * 60 {
            diag.error("'min_interval_minutes' (\(schedule.minIntervalMinutes)) must not exceed 'max_interval_hours' "
                       + "(\(schedule.maxIntervalHours) h)", at: map.mark(of: "min_interval_minutes"))
        }
        return schedule
    }

    /// Prune windows must be > 0 and <= the article retention (contract section 5).
    private func parseRetention(_ node: Node) -> RetentionSettings {
        var retention = RetentionSettings()
        let keys = ["articles_days", "image_days", "content_days", "fetch_logs_days"]
        guard let map = MappingView(node, section: "retention", allowedKeys: keys, diag) else { return retention }
        let articles = map.int("articles_days", default: retention.articlesDays, range: 1...3650)
        retention.imageDays = pruneWindow(map, "image_days", default: retention.imageDays, articlesDays: articles)
        retention.contentDays = pruneWindow(map, "content_days", default: retention.contentDays, articlesDays: articles)
        retention.fetchLogsDays = map.int("fetch_logs_days", default: retention.fetchLogsDays, range: 1...3650)
        retention.articlesDays = articles
        return retention
    }

    private func pruneWindow(_ map: MappingView, _ key: String, default fallback: Int, articlesDays: Int) -> Int {
        let days = map.int(key, default: fallback, range: 1...3650)
        if map.node(key) != nil, days > articlesDays {
            diag.error("'\(key)' (\(days)) must not be longer than 'articles_days' (\(articlesDays))", at: map.mark(of: key))
        }
        return min(days, articlesDays)
    }

    private func parseCategories(_ nodes: [Node], at mark: Mark?) -> [CategoryConfig] {
        if nodes.isEmpty { diag.error("'categories' must not be empty", at: mark) }
        var categories: [CategoryConfig] = []
        // The values each entry will give, read first (reports discarded) so duplicates are known
        // before the walk; see `earlierDuplicates` for why not a dictionary.
        let quiet = Diagnostics(file: diag.file)
        let values = nodes.map { node -> (slug: String?, slugLine: Int, name: String?, nameLine: Int) in
            guard let map = MappingView(node, section: "category", allowedKeys: ["slug", "name"], quiet) else {
                return (nil, 0, nil, 0)
            }
            return (map.string("slug", required: true), diag.line(map.mark(of: "slug")) ?? 0,
                    map.string("name", required: true), diag.line(map.mark(of: "name")) ?? 0)
        }
        let earlierSlug = earlierDuplicates(values.map(\.slug))
        let earlierName = earlierDuplicates(values.map(\.name))
        for (index, node) in nodes.enumerated() {
            guard let map = MappingView(node, section: "category", allowedKeys: ["slug", "name"], diag) else { continue }
            let slug = map.string("slug", required: true)
            let name = map.string("name", required: true)
            if let slug, let problem = FieldRules.slugProblem(slug, field: "category slug") {
                diag.error(problem, at: map.mark(of: "slug"))
            }
            if let name, let problem = FieldRules.nameProblem(name, maxLength: FieldRules.maxCategoryNameLength) {
                diag.error("category \(problem)", at: map.mark(of: "name"))
            }
            if let slug, let first = earlierSlug[index] {
                diag.error("duplicate category slug '\(slug)' (lines \(values[first].slugLine) and \(values[index].slugLine))",
                           at: map.mark(of: "slug"))
            }
            if let name, let first = earlierName[index] {
                diag.error("duplicate category name '\(name)' (lines \(values[first].nameLine) and \(values[index].nameLine))",
                           at: map.mark(of: "name"))
            }
            if let slug, let name {
                categories.append(CategoryConfig(slug: slug, name: name, displayOrder: categories.count))
            }
        }
        return categories
    }
}

/// Why `open` or `read` failed, for messages that name the file.
func readFailureReason(_ code: Int32) -> String {
    switch code {
    case ENOENT, ENOTDIR: "no such file"
    case EISDIR: "it is a directory"
    case EACCES, EPERM: "permission denied"
    default: String(cString: strerror(code))
    }
}

/// A user agent goes into an HTTP header: refuse CR/LF and other controls (header injection).
func userAgentProblem(_ agent: String) -> String? {
    // Printable ASCII (the usual agent) settles every check on the bytes.
    if agent.utf8.count <= 512, agent.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
        return agent.utf8.contains { $0 != UInt8(ascii: " ") } ? nil : "must not be empty"
    }
    // Foundation's `trimmingCharacters(in: .whitespaces)` (on Linux: tab, the space separators
    // and U+200B) without NSString: its first use was 2.5% of --check-config.
    if agent.unicodeScalars.allSatisfy({ $0 == "\t" || $0 == "\u{200B}" || $0.properties.generalCategory == .spaceSeparator }) {
        return "must not be empty"
    }
    if agent.unicodeScalars.contains(where: HiddenCharacter.isHidden) { return "must not contain control characters" }
    if !agent.unicodeScalars.allSatisfy(\.isASCII) { return "must be ASCII" }
    if agent.utf8.count > 512 { return "must be at most 512 characters" }
    return nil
}
