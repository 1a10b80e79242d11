import Testing
import CanonicalURL

// Hashes printed by gocanon (Go's crypto/sha256 over the canonical string Go produced).
@Suite struct CanonicalURLHashTests {
    @Test func contractPinnedHash() {
        #expect(CanonicalURL.hash("https://example.com/path?a=1&b=2")
            == "94ab2087f4c4ce19d248cfbab9e2b19cc5065e443510f7f37cab7347aaa7df0c")
    }

    @Test(arguments: [
        ("HTTPS://Example.com/path?b=2&a=1#frag", "94ab2087f4c4ce19d248cfbab9e2b19cc5065e443510f7f37cab7347aaa7df0c"),
        ("https://example.com/café", "d111192409cd9af133e4ad4bf2783397392c82832e36b493fa3c311ff969127c"),
        ("https://example.com/a?q=a b", "60853af05174b875eb8e11fc7c2c55b61d3013818a0bc78e2f7d169869f4c2ff"),
        ("https://example.com/a?q=é&p=%C3%A9", "b93ca34d919be5056a22fea4f304b3796c08f41d417aea38ee1f6a92b9e38ae8"),
        ("https://CAFÉ.example/", "efb801aa16b6289d32df43e064d0f2ac0324d9d2b083b09c2f3ec581f469c9e8"),
        ("https://example.com/%zz?b=1&a=2#f", "2207831508741062a4d34c969340b52e8f3cdde6047738f99d417e4ff6244e85"),
        ("#only-fragment", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
    ])
    func hashOfCanonicalForm(_ input: String, _ expected: String) {
        #expect(CanonicalURL.hash(CanonicalURL.canonicalize(input)) == expected)
    }

    @Test func hashIsLowercaseHexOfSixtyFourDigits() {
        let digest = CanonicalURL.hash("https://example.com/")
        #expect(digest.count == 64)
        #expect(digest.allSatisfy { "0123456789abcdef".contains($0) })
    }
}

@Suite struct GoQuirkTests {
    @Test func queryPiecesSortByBytesNotByUnicodeOrder() {
        // "Z" (0x5A) < "a" (0x61) < "é" (0xC3 ...): byte order, not case-insensitive or collation order.
        #expect(CanonicalURL.canonicalize("https://e.com/?é=1&a=1&Z=1") == "https://e.com/?Z=1&a=1&é=1")
    }

    @Test func invalidUTF8InDecodedHostBecomesOneReplacementCharacterPerByte() {
        // Go's strings.ToLower maps each invalid byte to U+FFFD; Swift's decoder would merge them.
        #expect(CanonicalURL.canonicalize("http://x%e2%82.com/") == "http://x%EF%BF%BD%EF%BF%BD.com/")
    }

    @Test func hostLowercasingUsesGoSimpleCaseMapping() {
        // U+0130 lowercases to plain "i" in Go (simple mapping), not "i" + combining dot.
        #expect(CanonicalURL.canonicalize("http://\u{130}stanbul.example/") == "http://istanbul.example/")
    }
}
