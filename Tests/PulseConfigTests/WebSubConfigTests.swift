import Testing

@testable import PulseConfig

/// The `websub:` section: off by default, strict when present, every problem on its line.
@Suite("websub section")
struct WebSubConfigTests {
    @Test func offByDefault() throws {
        let config = try ConfigLoader.parse(yaml: oneSource(), file: "ok.yaml")
        #expect(config.websub == WebSubSettings())
        #expect(!config.websub.enabled)
    }

    @Test func theIssueExampleLoads() throws {
        let yaml = """
            websub: { enabled: true, callback_url: "https://ingest.example.com/websub", listen: "127.0.0.1:8089", lease_seconds: 864000 }
            schedule: { max_interval_hours: 12 }

            """ + oneSource()
        let config = try ConfigLoader.parse(yaml: yaml, file: "ok.yaml")
        #expect(config.websub.enabled)
        #expect(config.websub.allowHTTPHubs == false)
        #expect(config.websub.listenHost == "127.0.0.1" && config.websub.listenPort == 8089)
        #expect(config.websub.leaseSeconds == 864_000)
        // The relaxed poll interval defaults to the schedule's maximum.
        #expect(config.websub.subscribedPollHours(schedule: config.schedule) == 12)
    }

    @Test func ipv6ListenAndExplicitPollInterval() throws {
        let yaml = "websub:\n  enabled: true\n  callback_url: https://a.example/hook\n  listen: \"[::1]:9000\"\n"
            + "  subscribed_poll_hours: 6\n" + oneSource()
        let config = try ConfigLoader.parse(yaml: yaml, file: "ok.yaml")
        #expect(config.websub.listenHost == "::1" && config.websub.listenPort == 9000)
        #expect(config.websub.subscribedPollHours(schedule: config.schedule) == 6)
    }

    @Test func httpHubsOnlyWhenAllowed() throws {
        let yaml = "websub:\n  enabled: true\n  callback_url: https://a.example/hook\n  listen: 127.0.0.1:9000\n"
            + "  allow_http_hubs: true\n" + oneSource()
        #expect(try ConfigLoader.parse(yaml: yaml, file: "ok.yaml").websub.allowHTTPHubs)
        expectIssue(issues("websub:\n  allow_http_hubs: maybe\n" + oneSource()), containing: "allow_http_hubs", line: 2, source: nil)
    }

    @Test func enabledNeedsCallbackAndListen() {
        let found = issues("websub:\n  enabled: true\n" + oneSource())
        expectIssue(found, containing: "'callback_url'", line: 2, source: nil)
        expectIssue(found, containing: "'listen'", line: 2, source: nil)
    }

    @Test(arguments: [
        ("callback_url: ftp://a.example/x", "absolute http(s) URL"),
        ("callback_url: https://a.example/x?y=1", "no query or fragment"),
        ("callback_url: https://a.example/x/", "must not end with '/'"),
        ("callback_url: https://u:p@a.example/x", "userinfo"),
        ("listen: example.org:8089", "'listen' must be an IP address and a port"),
        ("listen: \"127.0.0.1:0\"", "'listen' must be an IP address and a port"),
        ("listen: \"127.0.0.1\"", "'listen' must be an IP address and a port"),
        ("listen: \"127.0.0.1:70000\"", "'listen' must be an IP address and a port"),
        ("lease_seconds: 10", "'lease_seconds'"),
        ("subscribed_poll_hours: 0", "'subscribed_poll_hours'"),
        ("lease_secs: 10", "unknown key 'lease_secs' in 'websub'"),
    ])
    func badValuesAreReportedOnTheirLine(line: String, message: String) {
        var lines = ["enabled: true", "callback_url: https://a.example/hook", "listen: \"127.0.0.1:8089\""]
        let key = String(line.prefix { $0 != ":" })
        lines.removeAll { $0.hasPrefix(key + ":") }
        lines.append(line)
        let yaml = "websub:\n" + lines.map { "  " + $0 + "\n" }.joined() + oneSource()
        expectIssue(issues(yaml), containing: message, line: 1 + lines.count, source: nil)
    }
}
