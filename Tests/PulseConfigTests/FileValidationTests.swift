import Foundation
import Testing

@testable import PulseConfig

@Suite("file-level validation")
struct FileValidationTests {
    @Test func unknownTopLevelKeySuggestsTheClosest() {
        let found = issues("prune_unlistd: true\n" + oneSource())
        let issue = expectIssue(found, containing: "unknown key 'prune_unlistd' in 'top level'", line: 1, source: nil)
        #expect(issue?.message.contains("did you mean 'prune_unlisted'?") == true)
    }

    @Test func unknownSourceKeySuggestsTheClosest() {
        let found = issues(oneSource(extra: ["fetch_interval_hour: 3"]))
        let issue = expectIssue(found, containing: "unknown key 'fetch_interval_hour' in 'source'", line: 8, source: "alpha")
        #expect(issue?.message.contains("did you mean 'fetch_interval_hours'?") == true)
    }

    @Test func unknownKeyWithoutCloseMatchHasNoSuggestion() {
        let issue = expectIssue(issues(oneSource(extra: ["colour: blue"])), containing: "unknown key 'colour'",
                                line: 8, source: "alpha")
        #expect(issue?.message.contains("did you mean") == false)
    }

    @Test(arguments: [
        ("defaults", "fetch_intervall_hours: 2", "fetch_interval_hours"),
        ("fetch", "user_agnet: x", "user_agent"),
        ("schedule", "min_interval_minute: 5", "min_interval_minutes"),
        ("enrichment", "concurency: 2", "concurrency"),
        ("retention", "article_days: 7", "articles_days"),
    ])
    func unknownKeysInEverySection(section: String, line: String, suggestion: String) {
        let yaml = "\(section):\n  \(line)\n" + oneSource()
        let key = String(line.prefix { $0 != ":" })
        let issue = expectIssue(issues(yaml), containing: "unknown key '\(key)' in '\(section)'", line: 2, source: nil)
        #expect(issue?.message.contains("did you mean '\(suggestion)'?") == true)
    }

    @Test func unknownKeyInCategory() {
        let yaml = "categories:\n  - { slug: world, name: World, order: 1 }\n" + oneSource()
        expectIssue(issues(yaml), containing: "unknown key 'order' in 'category'", line: 2, source: nil)
    }

    @Test(arguments: ["database_url", "DATABASE_URL", "db_password", "connection_string", "databse_url"])
    func secretsAreRefusedAtTheTopLevel(key: String) {
        let found = issues("\(key): postgres://u:secret@h/db\n" + oneSource())
        let issue = expectIssue(found, containing: "'\(key)' is not allowed", line: 1, source: nil)
        #expect(issue?.message.contains("DATABASE_URL environment variable") == true)
        #expect(!found.contains { $0.description.contains("secret@") })
    }

    @Test func secretsAreRefusedInsideASource() {
        let found = issues(oneSource(extra: ["password: hunter2"]))
        let issue = expectIssue(found, containing: "'password' is not allowed", line: 8, source: "alpha")
        #expect(issue?.message.contains("DATABASE_URL") == true)
    }

    @Test func duplicateCategorySlugs() {
        let yaml = """
            categories:
              - { slug: world, name: World }
              - { slug: world, name: World Two }

            """ + oneSource()
        let issue = expectIssue(issues(yaml), containing: "duplicate category slug 'world'", line: 3, source: nil)
        #expect(issue?.message.contains("lines 2 and 3") == true)
    }

    @Test func customCategoriesDefineDisplayOrderAndMembership() throws {
        let yaml = "categories:\n  - { slug: news, name: News }\n  - { slug: world, name: World }\n" + oneSource()
        let config = try ConfigLoader.parse(yaml: yaml, file: "ok.yaml")
        #expect(config.categories == [CategoryConfig(slug: "news", name: "News", displayOrder: 0),
                                      CategoryConfig(slug: "world", name: "World", displayOrder: 1)])
        let found = issues("categories:\n  - { slug: news, name: News }\n" + oneSource())
        expectIssue(found, containing: "unknown category 'world'", line: 8, source: "alpha")
    }

    @Test(arguments: [
        ("articles_days: 0", "'articles_days' must be between 1 and 3650 (got 0)"),
        ("image_days: 0", "'image_days' must be between 1 and 3650 (got 0)"),
        ("content_days: -2", "'content_days' must be between 1 and 3650 (got -2)"),
        ("fetch_logs_days: 0", "'fetch_logs_days' must be between 1 and 3650 (got 0)"),
        ("image_days: 8", "'image_days' (8) must not be longer than 'articles_days' (7)"),
        ("content_days: 9", "'content_days' (9) must not be longer than 'articles_days' (7)"),
    ])
    func retentionWindows(line: String, message: String) {
        expectIssue(issues("retention:\n  \(line)\n" + oneSource()), containing: message, line: 2, source: nil)
    }

    @Test func unsetPruneWindowsFollowAShorterArticleRetention() throws {
        let config = try ConfigLoader.parse(yaml: "retention:\n  articles_days: 2\n" + oneSource(), file: "ok.yaml")
        let retention = config.retention
        #expect(retention.articlesDays == 2 && retention.imageDays == 2 && retention.contentDays == 2 && retention.fetchLogsDays == 7)
    }

    @Test(arguments: [
        ("connect_timeout_seconds: 0", "'connect_timeout_seconds' must be between 1 and 300 (got 0)"),
        ("total_timeout_seconds: -1", "'total_timeout_seconds' must be between 1 and 3600 (got -1)"),
        ("low_speed_bytes_per_second: 0", "'low_speed_bytes_per_second' must be between 1"),
        ("low_speed_seconds: 0", "'low_speed_seconds' must be between 1"),
        ("max_concurrent_fetches: 0", "'max_concurrent_fetches' must be between 1 and 256 (got 0)"),
        ("max_per_host: 0", "'max_per_host' must be between 1"),
        ("per_host_requests_per_second: 0", "'per_host_requests_per_second' must be greater than 0"),
        ("per_host_requests_per_second: -0.5", "'per_host_requests_per_second' must be greater than 0"),
        ("feed_body_limit_bytes: 0", "'feed_body_limit_bytes' must be between 1"),
        ("page_body_limit_bytes: -5", "'page_body_limit_bytes' must be between 1"),
        ("image_head_limit_bytes: 0", "'image_head_limit_bytes' must be between 1"),
        ("max_items_per_feed: 0", "'max_items_per_feed' must be between 1 and 100000 (got 0)"),
        ("user_agent: \"\"", "'user_agent' must not be empty"),
        ("user_agent: \"bot\\r\\nX-Evil: 1\"", "'user_agent' must not contain control characters"),
        ("allow_https_downgrade: maybe", "'allow_https_downgrade' must be true or false (got 'maybe')"),
        ("allow_https_downgrade: \"true\"", "'allow_https_downgrade' must be true or false"),
        ("allow_https_downgrade: 1", "'allow_https_downgrade' must be true or false"),
    ])
    func fetchLimitsMustBePositive(line: String, message: String) {
        expectIssue(issues("fetch:\n  \(line)\n" + oneSource()), containing: message, line: 2, source: nil)
    }

    @Test func fetchCrossChecks() {
        let found = issues("fetch:\n  connect_timeout_seconds: 90\n  total_timeout_seconds: 60\n" + oneSource())
        expectIssue(found, containing: "'connect_timeout_seconds' (90) must not exceed 'total_timeout_seconds' (60)",
                    line: 2, source: nil)
    }

    @Test func fetchSettingsAreRead() throws {
        let yaml = """
            fetch:
              user_agent: "test-agent/2"
              max_concurrent_fetches: 4
              per_host_requests_per_second: 0.5
              allow_https_downgrade: yes
            schedule: { min_interval_minutes: 30, max_interval_hours: 12, database_retry_seconds: 90 }
            enrichment: { enabled: false, concurrency: 8, per_source_budget_seconds: 30 }
            prune_unlisted: true

            """ + oneSource()
        let config = try ConfigLoader.parse(yaml: yaml, file: "ok.yaml")
        #expect(config.fetch.userAgent == "test-agent/2")
        #expect(config.fetch.maxConcurrentFetches == 4)
        #expect(config.fetch.perHostRequestsPerSecond == 0.5)
        #expect(config.fetch.totalTimeoutSeconds == 60)
        #expect(config.fetch.allowHTTPSDowngrade)
        #expect(try !ConfigLoader.parse(yaml: oneSource(), file: "ok.yaml").fetch.allowHTTPSDowngrade)
        let schedule = config.schedule, enrichment = config.enrichment
        #expect(schedule.minIntervalMinutes == 30 && schedule.maxIntervalHours == 12 && schedule.databaseRetrySeconds == 90)
        #expect(!enrichment.enabled && enrichment.concurrency == 8 && enrichment.perSourceBudgetSeconds == 30)
        #expect(config.pruneUnlisted)
    }

    @Test func enrichmentBoundsAreChecked() {
        let yaml = "enrichment:\n  concurrency: 0\n" + oneSource()
        _ = expectIssue(issues(yaml), containing: "concurrency", line: 2, source: nil)
    }

    @Test func yamlSyntaxErrorCarriesItsLine() {
        let yaml = "version: 1\nsources:\n  - slug: alpha\n    name: [unclosed\n    feed_url: x\n"
        let found = issues(yaml)
        #expect(found.count == 1)
        #expect(found.first?.message.hasPrefix("YAML syntax error") == true)
        #expect(found.first?.line != nil)
        #expect(found.first?.description.hasPrefix("bad.yaml:\(found.first?.line ?? -1): ") == true)
    }

    @Test func tabIndentationIsASyntaxErrorOnItsLine() {
        let found = issues("version: 1\nsources:\n\t- slug: alpha\n")
        expectIssue(found, containing: "YAML syntax error", line: 3, source: nil)
    }

    @Test func duplicateKeyInAMappingIsReported() {
        let found = issues(oneSource(extra: ["language: pt"]))
        #expect(found.count == 1)
        #expect(found.first?.message.contains("duplicate key 'language'") == true)
        #expect(found.first?.line != nil)
    }

    @Test(arguments: ["", "   \n\n", "# only a comment\n"])
    func emptyFileIsRejected(text: String) {
        expectIssue(issues(text, file: "empty.yaml"), containing: "configuration file is empty", line: nil,
                    source: nil, file: "empty.yaml")
    }

    @Test func rootMustBeAMapping() {
        expectIssue(issues("- a\n- b\n"), containing: "'top level' must be a mapping", line: 1, source: nil)
    }

    @Test func versionIsRequiredAndMustBeOne() {
        expectIssue(issues(oneSource().replacingOccurrences(of: "version: 1\n", with: "")),
                    containing: "missing required key 'version'", line: 1, source: nil)
        expectIssue(issues(oneSource().replacingOccurrences(of: "version: 1", with: "version: 2")),
                    containing: "unsupported 'version' 2", line: 1, source: nil)
    }

    @Test func sourcesAreRequired() {
        expectIssue(issues("version: 1\n"), containing: "missing required key 'sources'", line: 1, source: nil)
        expectIssue(issues("version: 1\nsources: nope\n"), containing: "'sources' must be a list", line: 2, source: nil)
    }

    @Test func anchorsAndAliasesAreRefused() {
        let yaml = "version: 1\ndefaults: &d\n  fetch_interval_hours: 2\nsources: []\nschedule: *d\n"
        let found = issues(yaml)
        expectIssue(found, containing: "anchors and aliases", line: 2, source: nil)
        #expect(found.filter { $0.message.contains("anchors and aliases") }.count == 2)
        let laughs = issues(oneSource(extra: ["active: &yes true", "language_detection: *yes"]))
        expectIssue(laughs, containing: "anchors and aliases", line: 8, source: "alpha")
    }

    @Test func everyProblemIsReportedInLineOrder() {
        let yaml = """
            version: 1
            retention: { image_days: 0 }
            sources:
              - slug: Bad_Slug
                name: ""
                feed_url: ftp://example.com/feed
                category: nowhere
                language: english
                fetch_interval_hours: 500
              - slug: fine
                name: Fine
                feed_url: https://example.com/f
                category: world
                language: en
                unknown_thing: 1
            """
        let error = #expect(throws: ConfigError.self) { try ConfigLoader.parse(yaml: yaml, file: "many.yaml") }
        let lines = error?.issues.map(\.line) ?? []
        #expect(error?.issues.count == 8)
        #expect(lines == lines.sorted { ($0 ?? 0) < ($1 ?? 0) })
        #expect(Set(lines.compactMap { $0 }) == [2, 4, 5, 6, 7, 8, 9, 15])
        let text = error?.description ?? ""
        #expect(text.hasPrefix("many.yaml: 8 configuration problems\n"))
        #expect(text.contains("many.yaml:15: source 'fine': unknown key 'unknown_thing'"))
        #expect(text.contains("many.yaml:7: source 'Bad_Slug': unknown category 'nowhere'"))
    }
}
