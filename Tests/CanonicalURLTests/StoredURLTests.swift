import Testing
import CanonicalURL

@Suite struct StoredURLValidationTests {
    @Test(arguments: [
        "https://example.com/",
        "http://example.com:8080/a/b?c=d#e",
        "https://news.example.co.uk/2024/05/story.html",
        "https://café.example/menu",
        "https://xn--caf-dma.example/",
        "http://192.0.2.1/feed.xml",
        "http://[2001:db8::1]:8443/",
        "HTTPS://EXAMPLE.COM/",
        "https://cdn_edge.example.com/img.png",
    ])
    func acceptsOrdinaryWebURLs(_ url: String) {
        #expect(StoredURL.validate(url) == .success(url))
    }

    @Test func trimsSurroundingWhitespaceAndReturnsTrimmedURL() {
        #expect(StoredURL.validate("  \n https://example.com/a \t") == .success("https://example.com/a"))
    }

    @Test(arguments: [
        ("", StoredURLRejection.empty),
        ("   ", .empty),
        ("/relative/path", .notAbsolute),
        ("//example.com/scheme-relative", .notAbsolute),
        ("example.com/no-scheme", .notAbsolute),
        ("ftp://example.com/file", .schemeNotAllowed),
        ("javascript:alert(1)", .schemeNotAllowed),
        ("mailto:someone@example.com", .schemeNotAllowed),
        ("data:text/html,hi", .schemeNotAllowed),
        ("http:example.com/opaque", .noHost),
        ("http:///path", .noHost),
        ("https://", .noHost),
        ("https://:8080/", .noHost),
        ("https://user:secret@example.com/", .userinfoPresent),
        ("https://user@example.com/", .userinfoPresent),
        ("https://@example.com/", .userinfoPresent),
        ("https://example.com/a\u{0}b", .controlOrBidiCharacters),
        ("https://example.com/a\u{7}b", .controlOrBidiCharacters),
        ("https://exa\nmple.com/", .controlOrBidiCharacters),
        ("https://example.com/\u{85}x", .controlOrBidiCharacters),
        ("https://example.com/\u{202E}gnp.exe", .controlOrBidiCharacters),
        ("https://example.com/\u{2066}x\u{2069}", .controlOrBidiCharacters),
        ("https://example.com/\u{200F}", .controlOrBidiCharacters),
        ("https://ex%E2%80%AEample.com/", .controlOrBidiCharacters),
        ("https://example.com/%zz", .malformed),
        ("https://exa%41mple.com/", .malformed),
        ("https://[::1/", .malformed),
        ("https://example.com:99999/", .invalidPort),
        ("https://example.com:0/", .invalidPort),
        ("https://ex<am>ple.com/", .invalidHost),
        ("https://a:b:80/", .invalidHost),
        ("https://[fe80::1%25en0]/", .invalidHost),
        ("https://[not-ipv6]/", .invalidHost),
        ("https://x%ff.com/", .invalidHost),
        ("http://2130706433/", .obfuscatedIPLiteral),
        ("http://0x7f.1/", .obfuscatedIPLiteral),
        ("http://0X7F000001/", .obfuscatedIPLiteral),
        ("http://017700000001/", .obfuscatedIPLiteral),
        ("http://127.1/", .obfuscatedIPLiteral),
        ("http://127.0.1/", .obfuscatedIPLiteral),
        ("http://0177.0.0.1/", .obfuscatedIPLiteral),
        ("http://127.0.0.01/", .obfuscatedIPLiteral),
        ("http://127.0.0.1./", .obfuscatedIPLiteral),
        ("http://256.0.0.1/", .obfuscatedIPLiteral),
        ("http://\u{FF11}\u{FF12}\u{FF17}.\u{FF10}.\u{FF10}.\u{FF11}/", .obfuscatedIPLiteral),
        ("http://127\u{3002}0\u{3002}0\u{3002}1/", .obfuscatedIPLiteral),
    ])
    func rejects(_ url: String, _ reason: StoredURLRejection) {
        #expect(StoredURL.validate(url) == .failure(reason))
    }

    @Test func rejectsURLsLongerThanTheCapInCharacters() {
        let base = "https://example.com/"
        let exact = base + String(repeating: "é", count: 2048 - base.count)
        #expect(StoredURL.validate(exact) == .success(exact))
        #expect(StoredURL.validate(exact + "x") == .failure(.tooLong(limit: 2048)))
        #expect(StoredURL.validate("https://example.com/abcdef", maxLength: 20) == .failure(.tooLong(limit: 20)))
    }

    @Test func hostNamesThatMerelyContainDigitsAreNotIPLiterals() {
        #expect(StoredURL.validate("https://123.example.com/") == .success("https://123.example.com/"))
        #expect(StoredURL.validate("https://0x7f.example/") == .success("https://0x7f.example/"))
    }

    @Test func ipLiteralHookRefusesWhatThePolicyRefuses() {
        let refuseLoopback: (String) -> Bool = { $0 != "127.0.0.1" && $0 != "[::1]" }
        #expect(StoredURL.validate("http://127.0.0.1/", ipLiteralAllowed: refuseLoopback) == .failure(.disallowedIPLiteral))
        #expect(StoredURL.validate("http://[::1]:80/", ipLiteralAllowed: refuseLoopback) == .failure(.disallowedIPLiteral))
        #expect(StoredURL.validate("http://192.0.2.7/", ipLiteralAllowed: refuseLoopback) == .success("http://192.0.2.7/"))
        #expect(StoredURL.validate("http://localhost.example/", ipLiteralAllowed: { _ in false })
            == .success("http://localhost.example/"))
    }

    @Test(arguments: [
        ("http://127.0.0.1/", "127.0.0.1"),
        ("http://10.0.0.8:8080/x", "10.0.0.8"),
        ("http://[::1]/", "[::1]"),
        ("http://[FE80::1]:443/", "[fe80::1]"),
        ("  https://192.0.2.1  ", "192.0.2.1"),
    ])
    func ipLiteralHostFindsLiterals(_ url: String, _ host: String) {
        #expect(StoredURL.ipLiteralHost(of: url) == host)
    }

    @Test(arguments: ["https://example.com/", "http://2130706433/", "/relative", "http://%zz/", "mailto:a@b.c"])
    func ipLiteralHostIgnoresNamesAndGarbage(_ url: String) {
        #expect(StoredURL.ipLiteralHost(of: url) == nil)
    }

    @Test func everyRejectionHasAOneLineDescription() {
        let all: [StoredURLRejection] = [.empty, .tooLong(limit: 9), .controlOrBidiCharacters, .malformed,
                                         .notAbsolute, .schemeNotAllowed, .noHost, .userinfoPresent, .invalidHost,
                                         .invalidPort, .obfuscatedIPLiteral, .disallowedIPLiteral]
        #expect(Set(all.map(\.description)).count == all.count)
        #expect(all.allSatisfy { !$0.description.isEmpty && !$0.description.contains("\n") })
    }
}
