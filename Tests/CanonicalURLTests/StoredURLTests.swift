import Testing
@testable import CanonicalURL

@Suite struct StoredURLValidationTests {
    @Test(arguments: [
        "https://example.com/",
        "http://example.com:8080/a/b?c=d#e",
        "https://news.example.co.uk/2024/05/story.html",
        "https://café.example/menu",
        "https://xn--caf-dma.example/",
        "http://8.8.8.8/feed.xml",
        "http://[2606:4700::1111]:8443/",
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
        ("https://example.com/a\\b", .disallowedCharacter),
        ("https://example.com/a\u{A0}b", .disallowedCharacter),
        ("https://example.com/\u{FEFF}", .disallowedCharacter),
        ("\u{A0}https://example.com/", .disallowedCharacter),
        ("https://example.com/\u{2028}", .controlOrBidiCharacters),
        ("http://localhost/", .localhost),
        ("http://LocalHost./", .localhost),
        ("http://a.b.localhost/", .localhost),
        ("http://\u{FF4C}\u{FF4F}\u{FF43}\u{FF41}\u{FF4C}\u{FF48}\u{FF4F}\u{FF53}\u{FF54}/", .localhost),
        ("http://./", .noHost),
        ("http://127.0.0.1../", .obfuscatedIPLiteral),
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

    /// The address policy is part of the rule: private, loopback and documentation ranges are
    /// refused however the literal is spelled (the store always applied it; now every caller does).
    @Test(arguments: ["http://127.0.0.1/", "http://192.0.2.1/feed.xml", "http://[2001:db8::1]:8443/",
                      "http://[0:0:0:0:0:0:0:1]/", "http://[::ffff:127.0.0.1]/", "http://[::ffff:7f00:1]/",
                      "http://169.254.169.254/latest", "http://[FD00::1]/"])
    func addressPolicyAppliesByDefault(_ url: String) {
        #expect(StoredURL.validate(url) == .failure(.disallowedIPLiteral))
        #expect(StoredURL.check(url) == nil)
    }

    @Test func pathSpacesAreWrittenAsTheCanonicalFormHas() {
        #expect(StoredURL.check("http://ex.com/a b?q=c d#e f") == "http://ex.com/a%20b?q=c d#e f")
        #expect(StoredURL.validate("http://ex .com/") == .failure(.malformed))
        // The cap is on the URL kept: two spaces that become "%20" can take it past 2048.
        let near = "https://example.com/" + String(repeating: "a", count: 2048 - 22) + " b"
        #expect(near.count == 2048)
        #expect(StoredURL.validate(near) == .failure(.tooLong(limit: 2048)))
    }

    /// The byte scan that accepts plain ASCII URLs without parsing gives the full check's answer.
    @Test(arguments: [
        "https://example.com/", "http://EXAMPLE.com:8080/a/b?c=d#e", "https://a_b-c.example./x%20y?%zz#%41",
        "http://ex.com:/", "http://ex.com:080/", "http://ex.com:65535/", "https://news.example/a?b=%zz",
        "http://x.y/%4", "http://x.y/#%4", "http://0x.example/", "http://1x.example/", "http://ex.com/?a#b?c",
        "http://ex.com#frag", "http://ex.com?q", "http://localhostx/", "http://xlocalhost/", "http://a..b/",
    ])
    func fastPathAgreesWithTheFullCheck(_ url: String) {
        let full = StoredURL.fullCheck(url, maxLength: 2048, ipLiteralAllowed: StoredURL.addressPolicyAllows)
        if let fast = PlainURLScan.accept(url, maxLength: 2048) { #expect(full == .success(fast)) }
        #expect(StoredURL.validate(url) == full)
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

    @Test func everyRejectionHasAOneLineDescription() {
        let all: [StoredURLRejection] = [.empty, .tooLong(limit: 9), .controlOrBidiCharacters, .disallowedCharacter,
                                         .malformed, .notAbsolute, .schemeNotAllowed, .noHost, .userinfoPresent,
                                         .invalidHost, .invalidPort, .localhost, .obfuscatedIPLiteral,
                                         .disallowedIPLiteral]
        #expect(Set(all.map(\.description)).count == all.count)
        #expect(all.allSatisfy { !$0.description.isEmpty && !$0.description.contains("\n") })
    }
}
