import AddressPolicy
import Foundation
import Testing
@testable import HTTPFetcher

struct HostLimiterTests {
    @Test func capsConnectionsPerHost() {
        var limiter = HostLimiter(perHostConnections: 2, requestsPerSecond: 0)
        let t0 = ContinuousClock.now
        #expect(limiter.earliestStart(for: "a", now: t0) == t0)
        limiter.started("a", at: t0)
        limiter.started("a", at: t0)
        #expect(limiter.earliestStart(for: "a", now: t0) == nil)
        #expect(limiter.earliestStart(for: "b", now: t0) == t0, "hosts are independent")
        limiter.finished("a", now: t0)
        #expect(limiter.earliestStart(for: "a", now: t0) == t0)
        #expect(limiter.inFlight(for: "a") == 1)
    }

    @Test func spacesStartsByRate() {
        var limiter = HostLimiter(perHostConnections: 4, requestsPerSecond: 2)
        let t0 = ContinuousClock.now
        limiter.started("a", at: t0)
        #expect(limiter.earliestStart(for: "a", now: t0) == t0 + .milliseconds(500))
        #expect(limiter.earliestStart(for: "a", now: t0 + .milliseconds(700)) == t0 + .milliseconds(700))
        limiter.finished("a", now: t0 + .milliseconds(100))
        #expect(limiter.earliestStart(for: "a", now: t0 + .milliseconds(100)) == t0 + .milliseconds(500),
                "finishing early does not reset the spacing")
    }
}

extension HostLimiterTests {
    @Test func idleHostsAreForgotten() {
        var limiter = HostLimiter(perHostConnections: 1, requestsPerSecond: 1)
        let t0 = ContinuousClock.now
        for i in 0..<5000 {
            limiter.started("h\(i)", at: t0)
            limiter.finished("h\(i)", now: t0)
        }
        #expect(limiter.trackedHosts == 5000)
        let later = t0 + .seconds(2)
        limiter.started("fresh", at: later)
        // Starting a request pruned every host whose interval had passed.
        #expect(limiter.trackedHosts == 1)
        limiter.finished("fresh", now: later)
        #expect(limiter.earliestStart(for: "h1", now: later) == later)
        #expect(limiter.earliestStart(for: "fresh", now: later) == later + .seconds(1))
    }
}

struct HeaderValueTests {
    let limit = Duration.seconds(86_400)

    @Test func retryAfterSeconds() {
        #expect(HeaderValues.retryAfter("120", limit: limit) == .seconds(120))
        #expect(HeaderValues.retryAfter(" 0 ", limit: limit) == .zero)
        #expect(HeaderValues.retryAfter("99999999", limit: limit) == limit)
        #expect(HeaderValues.retryAfter("999999999999999999999", limit: limit) == limit)
        #expect(HeaderValues.retryAfter("soon", limit: limit) == nil)
        #expect(HeaderValues.retryAfter(nil, limit: limit) == nil)
        #expect(HeaderValues.retryAfter("-5", limit: limit) == nil)
    }

    @Test func retryAfterHTTPDate() {
        let now = Date(timeIntervalSince1970: 1_784_000_000)
        let later = Routes.httpDate(now.addingTimeInterval(90))
        #expect(HeaderValues.retryAfter(later, now: now, limit: limit) == .seconds(90))
        let earlier = Routes.httpDate(now.addingTimeInterval(-90))
        #expect(HeaderValues.retryAfter(earlier, now: now, limit: limit) == .zero)
        // RFC 850 and asctime forms are HTTP-dates too.
        #expect(HeaderValues.retryAfter("Sunday, 06-Nov-94 08:49:37 GMT", now: Date(timeIntervalSince1970: 784_111_700), limit: limit) == .seconds(77))
        #expect(HeaderValues.retryAfter("Sun Nov  6 08:49:37 1994", now: Date(timeIntervalSince1970: 784_111_700), limit: limit) == .seconds(77))
    }

    @Test func cacheControlMaxAge() {
        #expect(HeaderValues.cacheMaxAge("public, max-age=300") == .seconds(300))
        #expect(HeaderValues.cacheMaxAge("max-age=\"60\"") == .seconds(60))
        #expect(HeaderValues.cacheMaxAge("no-store, max-age=300") == .zero)
        #expect(HeaderValues.cacheMaxAge("private") == nil)
        #expect(HeaderValues.cacheMaxAge("max-age=abc") == nil)
        #expect(HeaderValues.cacheMaxAge(nil) == nil)
    }
}

struct RedirectPolicyTests {
    @Test(arguments: [
        ("http://Example.COM/feed", "http://Example.COM/feed", "example.com"),
        ("https://example.com:8443/a?b=1", "https://example.com:8443/a?b=1", "example.com"),
        ("http://93.184.216.34/", "http://93.184.216.34/", "93.184.216.34"),
    ])
    func acceptsPublicHTTP(url: String, normalised: String, host: String) throws {
        let target = try RedirectPolicy.validate(url, exempt: [])
        #expect(target.url == normalised)
        #expect(target.host == host)
    }

    @Test(arguments: ["http://10.0.0.1/", "http://0x0a000001/", "http://[fd00::1]/", "http://[::ffff:192.168.1.1]/",
                      "https://169.254.169.254/", "http://0/", "http://[fe80::1%25eth0]/"])
    func refusesPrivateLiterals(url: String) {
        #expect(throws: FetchError.self) { try RedirectPolicy.validate(url, exempt: []) }
    }

    @Test(arguments: [("HTTP://a", "http"), ("svn+ssh://x", "svn+ssh"), ("javascript:alert(1)", "javascript"),
                      ("1http://x", nil), ("no-scheme", nil), ("//host/path", nil)] as [(String, String?)])
    func readsTheScheme(url: String, scheme: String?) {
        #expect(RedirectPolicy.scheme(of: url) == scheme)
    }

    @Test func zoneIDsAreRefusedEvenOnPublicAddresses() {
        #expect(throws: FetchError.blockedAddress(ip: "[2001:4860::1]", reason: "IPv6 zone ids are not allowed")) {
            try RedirectPolicy.validate("http://[2001:4860::1%25eth0]/", exempt: [])
        }
        #expect(throws: Never.self) { try RedirectPolicy.validate("http://[2001:4860::1]/", exempt: []) }
    }

    @Test(arguments: [("https://a.example/feed", "http://a.example/feed", true),
                      ("HTTPS://a.example/", "Http://b.example/", true),
                      ("https://a.example/", "https://b.example/", false),
                      ("http://a.example/", "https://a.example/", false),
                      ("http://a.example/", "http://b.example/", false)])
    func downgradeIsHTTPSToPlainHTTPOnly(from: String, to: String, downgrade: Bool) {
        #expect(RedirectPolicy.isDowngrade(from: from, to: to) == downgrade)
    }

    @Test func exemptionsApplyToLiterals() throws {
        let exempt = [CIDR(string: "10.0.0.0/8")!]
        #expect(try RedirectPolicy.validate("http://10.1.2.3/feed", exempt: exempt).host == "10.1.2.3")
    }
}

struct FetchErrorTests {
    static let all: [FetchError] = [
        .dns(host: "a.example"), .refused(host: "a.example"), .tls(message: "bad cert"), .timeout, .lowSpeed,
        .tooLarge(limit: 10), .blockedAddress(ip: "10.0.0.1", reason: "private network (RFC 1918)"),
        .badScheme(url: "file:///etc/passwd\r\nX: y"), .tooManyRedirects(limit: 5), .httpStatus(code: 500),
        .rateLimited(retryAfter: .seconds(7)), .rateLimited(retryAfter: nil), .cancelled,
        .other(code: 61, message: "Unrecognized content encoding\n"), .insecureRedirect(url: "http://a.example/\r\nX: y"),
    ]

    @Test(arguments: all)
    func messagesAreOneLine(error: FetchError) {
        #expect(!error.description.isEmpty)
        #expect(!error.description.contains("\n") && !error.description.contains("\r"))
    }

    @Test func messagesNameTheSpecifics() {
        #expect(FetchError.blockedAddress(ip: "10.0.0.1", reason: "private").description == "refused to connect to 10.0.0.1: private")
        #expect(FetchError.rateLimited(retryAfter: .seconds(7)).description.contains("7s"))
        #expect(FetchError.tooLarge(limit: 262_144).description.contains("262144"))
        #expect(FetchError.insecureRedirect(url: "http://a.example/feed").description
            == "refused redirect from https to plain http: http://a.example/feed")
    }

    @Test func defaultsFollowTheKind() {
        #expect(FetchRequest(url: "https://a.example/", kind: .feed).bodyLimit == 16 * 1024 * 1024)
        #expect(FetchRequest(url: "https://a.example/", kind: .page).bodyLimit == 5 * 1024 * 1024)
        #expect(FetchRequest(url: "https://a.example/", kind: .image).bodyLimit == 256 * 1024)
        #expect(FetchRequest(url: "https://a.example/", kind: .image, maxBodyBytes: 10).bodyLimit == 10)
        let configuration = FetcherConfiguration()
        #expect(configuration.globalConcurrency == 16 && configuration.perHostConnections == 2)
        #expect(configuration.perHostRequestsPerSecond == 2 && configuration.maxRedirects == 5)
        #expect(!configuration.allowLoopbackForTesting)
        #expect(!configuration.allowHTTPSDowngrade && configuration.caFile == nil && configuration.caPath == nil)
        #expect(configuration.exemptNetworks.isEmpty)
    }
}

struct GzipFixtureTests {
    @Test func crcMatchesKnownValue() {
        #expect(GzipFixture.crc32(Array("123456789".utf8)) == 0xCBF4_3926)
    }
}
