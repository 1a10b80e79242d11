import AddressPolicy
import PulseModel
import Testing

@testable import PulseConfig

@Suite("source validation")
struct SourceValidationTests {
    @Test func minimalFileLoadsWithDefaults() throws {
        let config = try ConfigLoader.parse(yaml: oneSource(), file: "ok.yaml")
        #expect(config.categories == CategoryConfig.contractCategories)
        #expect(config.categories.map(\.displayOrder) == Array(0..<10))
        #expect(config.sources == [
            SourceConfig(slug: "alpha", name: "Alpha", feedURL: "https://example.com/a.xml", categorySlug: "world",
                         language: "en", fetchIntervalHours: 2, maxContentLength: nil, isActive: nil,
                         languageDetection: true),
        ])
        // No `active:` key: the database decides (a new row starts active).
        #expect(config.sources.first?.isActive == nil && config.sources.first?.impliedActive == true)
        #expect(config.fetch == FetchSettings())
        #expect(config.retention == RetentionSettings())
        #expect(config.pruneUnlisted == false)
    }

    @Test func sourceOverridesAndDefaultsSection() throws {
        let yaml = """
            version: 1
            defaults:
              fetch_interval_hours: 3
              max_content_length: 100000
              language_detection: off
            sources:
              - slug: plain
                name: Plain
                feed_url: https://example.com/plain
                category: world
                language: en
              - slug: custom-pod
                name: Custom Pod
                feed_url: http://pods.example.com:8080/feed?x=1
                website_url: https://pods.example.com
                category: podcasts
                language: pt
                fetch_interval_hours: 6
                max_content_length: 50000
                active: false
                language_detection: yes
              - slug: tube
                name: Tube
                feed_url: https://www.youtube.com/feeds/videos.xml?channel_id=UC1
                category: videos
                language: es
            """
        let config = try ConfigLoader.parse(yaml: yaml, file: "ok.yaml")
        let plain = config.sources[0], pod = config.sources[1], tube = config.sources[2]
        #expect(plain.fetchIntervalHours == 3)
        #expect(plain.maxContentLength == nil)
        #expect(config.defaults.maxContentLength == 100_000)
        #expect(plain.languageDetection == false)
        #expect(plain.kind == .articles)
        #expect(pod.fetchIntervalHours == 6)
        #expect(pod.maxContentLength == 50_000)
        #expect(pod.isActive == false)
        #expect(pod.languageDetection == true)
        #expect(pod.websiteURL == "https://pods.example.com")
        #expect(pod.kind == .podcast)
        #expect(tube.kind == .video)
        #expect(config.activeSources.map(\.slug) == ["plain", "tube"])
    }

    @Test func duplicateSlugsNameBothLines() {
        let yaml = oneSource(extra: []) + """
              - slug: alpha
                name: Alpha Again
                feed_url: https://example.com/other.xml
                category: world
                language: en

            """
        let found = issues(yaml)
        let issue = expectIssue(found, containing: "duplicate source slug 'alpha'", line: 8, source: "alpha")
        #expect(issue?.message.contains("line 3") == true)
        #expect(issue?.message.contains("line 8") == true)
    }

    @Test func duplicateSlugIsFoundEvenInAnInvalidEntry() {
        let yaml = oneSource() + """
              - slug: alpha
                name: ""
                feed_url: nope
                category: world
                language: en

            """
        let found = issues(yaml)
        expectIssue(found, containing: "duplicate source slug 'alpha' (first on line 3, again on line 8)", line: 8,
                    source: "alpha")
        expectIssue(found, containing: "name must not be empty", line: 9, source: "alpha")
        #expect(found.count == 3)
    }

    @Test func credentialsInURLsAreNotEchoed() {
        let found = issues(oneSource(replacing: "feed_url", with: "https://reader:hunter2@example.com/feed"))
        expectIssue(found, containing: "feed_url must not contain a user name or password", line: 5, source: "alpha")
        #expect(!found.contains { $0.description.contains("hunter2") })
    }

    @Test func duplicateFeedURLIsRejected() {
        let yaml = oneSource() + """
              - slug: beta
                name: Beta
                feed_url: https://example.com/a.xml
                category: world
                language: en

            """
        expectIssue(issues(yaml), containing: "already used by source 'alpha' (line 5)", line: 10, source: "beta")
    }

    @Test func unknownCategorySuggestsTheClosest() {
        let found = issues(oneSource(replacing: "category", with: "wrold"))
        let issue = expectIssue(found, containing: "unknown category 'wrold'", line: 6, source: "alpha")
        #expect(issue?.message.contains("did you mean 'world'?") == true)
    }

    @Test(arguments: [
        "ftp://example.com/feed", "example.com/feed.xml", "/relative/feed", "https://", "https:///path",
        "https://user:pw@example.com/feed", "https://user@example.com/feed", "https://exa mple.com/feed",
        "\"https://example.com/a\\tb\"", "\"https://example.com/\\u202Eevil\"", "https://example.com:99999/feed",
        "javascript:alert(1)", "https://[::1/feed", "http://127.0.0.1:8080/feed", "https://[::1]:8443/f",
        "http://169.254.169.254/latest/meta-data/", "http://2130706433/", "http://localhost/feed",
    ])
    func badFeedURLsAreRejected(url: String) {
        let found = issues(oneSource(replacing: "feed_url", with: url))
        expectIssue(found, containing: "feed_url", line: 5, source: "alpha")
    }

    @Test(arguments: ["mailto:x@example.com", "https://a:b@example.com", "//example.com"])
    func badWebsiteURLsAreRejected(url: String) {
        let found = issues(oneSource(extra: ["website_url: \(url)"]))
        expectIssue(found, containing: "website_url", line: 8, source: "alpha")
    }

    /// What every stored URL may be (`StoredURL`), an IDN host and a label `StoredURL` does not
    /// judge included; loopback only where the operator allows it (`--allow-networks`).
    @Test(arguments: ["https://example.com", "https://example.com/a%20b?q=1&r=2", "https://exämple.com/feed",
                      "https://-bad-.example.com/", "http://127.0.0.1:8080/feed", "https://[::1]:8443/f"])
    func goodURLsAreAccepted(url: String) throws {
        let loopback = try #require(CIDR.parseList("127.0.0.0/8,::1/128"))
        let config = try ConfigLoader.parse(yaml: oneSource(replacing: "feed_url", with: url), file: "ok.yaml",
                                            allowedNetworks: loopback)
        #expect(config.sources.first?.feedURL == url)
    }

    @Test(arguments: ["EN", "eng", "e1", "pt-BR", "e"])
    func badLanguagesAreRejected(language: String) {
        expectIssue(issues(oneSource(replacing: "language", with: language)), containing: "language",
                    line: 7, source: "alpha")
    }

    @Test(arguments: [0, 169, -1])
    func fetchIntervalOutOfRange(hours: Int) {
        let found = issues(oneSource(extra: ["fetch_interval_hours: \(hours)"]))
        expectIssue(found, containing: "'fetch_interval_hours' must be between 1 and 168 (got \(hours))",
                    line: 8, source: "alpha")
    }

    @Test(arguments: [0, 200_001])
    func maxContentLengthOutOfRange(length: Int) {
        let found = issues(oneSource(extra: ["max_content_length: \(length)"]))
        expectIssue(found, containing: "'max_content_length' must be between 1 and 200000 (got \(length))",
                    line: 8, source: "alpha")
    }

    @Test(arguments: ["Alpha", "-alpha", "a_b", "a.b", String(repeating: "a", count: 101)])
    func badSlugsAreRejected(slug: String) {
        let found = issues(oneSource(replacing: "slug", with: slug))
        expectIssue(found, containing: "slug '\(slug)' is invalid", line: 3, source: slug)
    }

    @Test func longestValidSlugIsAccepted() throws {
        let slug = "9" + String(repeating: "a-", count: 49) + "z"
        #expect(slug.count == 100)
        let config = try ConfigLoader.parse(yaml: oneSource(replacing: "slug", with: slug), file: "ok.yaml")
        #expect(config.sources.first?.slug == slug)
    }

    @Test(arguments: ["\"\"", "\"   \""])
    func emptyNamesAreRejected(name: String) {
        expectIssue(issues(oneSource(replacing: "name", with: name)), containing: "name must not be empty",
                    line: 4, source: "alpha")
    }

    /// Every plain spelling of YAML's null is an empty value, as Yams' `Node.null` reads them.
    @Test(arguments: ["", "~", "null", "Null", "NULL"])
    func nullNameIsReported(spelling: String) {
        expectIssue(issues(oneSource(replacing: "name", with: spelling)), containing: "'name' must not be empty",
                    line: 4, source: "alpha")
    }

    /// Quoted, or spelt otherwise, it is a name.
    @Test(arguments: ["\"null\"", "'~'", "nUll", "none"])
    func nullLookalikesAreNames(spelling: String) throws {
        let config = try ConfigLoader.parse(yaml: oneSource(replacing: "name", with: spelling), file: "ok.yaml")
        #expect(config.sources.first?.name == spelling.filter { $0 != "\"" && $0 != "'" })
    }

    @Test func nameLongerThan255IsRejected() throws {
        // 255 characters counted as Unicode scalars is fine, 256 is not.
        let ok = String(repeating: "é", count: 255)
        _ = try ConfigLoader.parse(yaml: oneSource(replacing: "name", with: ok), file: "ok.yaml")
        let found = issues(oneSource(replacing: "name", with: String(repeating: "é", count: 256)))
        expectIssue(found, containing: "256 characters long; the maximum is 255", line: 4, source: "alpha")
    }

    @Test func bidiControlInNameIsRejected() {
        let found = issues(oneSource(replacing: "name", with: "\"Evil \\u202E name\""))
        expectIssue(found, containing: "bidirectional", line: 4, source: "alpha")
    }

    @Test func missingRequiredFieldNamesTheSource() {
        let yaml = """
            version: 1
            sources:
              - slug: alpha
                name: Alpha
                category: world
                language: en
            """
        expectIssue(issues(yaml), containing: "missing required key 'feed_url' in 'source'", line: 3, source: "alpha")
    }

    @Test func sourceWithoutSlugIsLabelledByPosition() {
        let yaml = """
            version: 1
            sources:
              - name: Alpha
                feed_url: https://example.com/a
                category: world
                language: en
            """
        expectIssue(issues(yaml), containing: "missing required key 'slug'", line: 3, source: "#1")
    }

    @Test func wrongTypesAreReported() {
        let found = issues(oneSource(extra: ["fetch_interval_hours: two", "active: maybe", "max_content_length: \"5\""]))
        expectIssue(found, containing: "'fetch_interval_hours' must be a whole number (got 'two')", line: 8, source: "alpha")
        expectIssue(found, containing: "'active' must be true or false (got 'maybe')", line: 9, source: "alpha")
        expectIssue(found, containing: "'max_content_length' must be a whole number", line: 10, source: "alpha")
    }

    @Test func listWhereAValueBelongsIsReported() {
        let found = issues(oneSource(replacing: "name", with: "[a, b]"))
        expectIssue(found, containing: "'name' must be a single value", line: 4, source: "alpha")
    }
}
