import AddressPolicy
import CanonicalURL
import Foundation
import Testing
import TextSupport
import Yams

@testable import PulseConfig

/// The field rules (URLs, names, numbers): the byte-level ones against the Foundation-based rules
/// they replaced, so the rewrite for speed accepts nothing the old rules refused; URLs and numbers
/// against the rules they share (StoredURL, Yams).
struct FieldRuleTests {
    /// A source's URL passes the rule every stored URL passes (`StoredURL`): what it keeps, the
    /// source keeps (an IDN host and a path space too, as `%20`).
    @Test(arguments: [
        "HTTPS://EXAMPLE.COM/feed", "http://example.com:1/", "https://example.com:65535/a", "https://example.com./",
        "https://xn--bcher-kva.example/", "https://1.2.3.4/", "https://[2606:4700::1]/", "https://[::ffff:1.2.3.4]:443/",
        "https://example.com?q", "https://example.com#top", "https://bücher.example/feed", "https://e.com/a b",
    ])
    func acceptedURLs(url: String) throws {
        let kept = try FieldRules.storedURL(url, field: "feed_url", allowing: []).get()
        #expect(kept == StoredURL.check(url))
    }

    /// Each refusal names the field and (but for userinfo) the value.
    @Test(arguments: [
        ("ftp://e.com/", "feed_url 'ftp://e.com/' must be an absolute http:// or https:// URL"),
        ("e.com/feed", "feed_url 'e.com/feed' must be an absolute http:// or https:// URL"),
        ("https://a:pw@b.com", "feed_url must not contain a user name or password (value not shown)"),
        ("", "feed_url must not be empty"),
        ("https://e.com/" + String(repeating: "a", count: 2048), "feed_url is longer than 2048 characters"),
        ("http://localhost/", "feed_url 'http://localhost/' is refused: URL host is localhost or a name under .localhost"),
        ("http://2130706433/", "feed_url 'http://2130706433/' is refused: URL host is an obfuscated IP literal "
            + "(decimal, octal, hex or short IPv4 form)"),
        ("https://e.com:0/", "feed_url 'https://e.com:0/' is refused: URL port is not in 1...65535"),
        ("https://[::1/", "feed_url 'https://[::1/' is refused: URL does not parse"),
        ("https://[:::::]/", "feed_url 'https://[:::::]/' is refused: its host is not a valid IP address"),
    ])
    func refusedURLs(url: String, message: String) {
        #expect(FieldRules.storedURL(url, field: "feed_url", allowing: []).problem == message)
    }

    /// IP literals the fetcher may not reach are refused as the fetcher refuses them (loopback,
    /// private, metadata, IPv6 loopback) unless the operator allows their network, as for an
    /// intranet feed; an obfuscated form never passes.
    @Test func ipLiteralsFollowTheAddressPolicyAndTheAllowedNetworks() throws {
        let intranet = try #require(CIDR.parseList("10.0.0.0/8,127.0.0.0/8,::1/128"))
        for (url, reason) in [("http://127.0.0.1/", "loopback"), ("http://10.1.2.3:8080/feed", "private network (RFC 1918)"),
                              ("https://[::1]:8443/f", "loopback")] {
            #expect(FieldRules.storedURL(url, field: "feed_url", allowing: []).problem
                    == "feed_url '\(url)' is refused: its host is in a range the fetcher refuses (\(reason)); "
                    + "an intranet feed's network can be allowed with --allow-networks")
            #expect(try FieldRules.storedURL(url, field: "feed_url", allowing: intranet).get() == url)
        }
        for url in ["http://169.254.169.254/latest/meta-data/", "http://192.168.1.1/"] {
            #expect(FieldRules.storedURL(url, field: "website_url", allowing: intranet).problem?
                        .hasPrefix("website_url '\(url)' is refused: its host is ") == true)
        }
        #expect(FieldRules.storedURL("http://0x7f.1/", field: "feed_url", allowing: intranet).problem?
                    .contains("obfuscated IP literal") == true)
        // Through the loader, as --check-config and the service read the file.
        let yaml = oneSource(replacing: "feed_url", with: "http://10.1.2.3:8080/feed")
        expectIssue(issues(yaml), containing: "feed_url 'http://10.1.2.3:8080/feed' is refused", line: 5, source: "alpha")
        let config = try ConfigLoader.parse(yaml: yaml, file: "ok.yaml", allowedNetworks: intranet)
        #expect(config.sources.first?.feedURL == "http://10.1.2.3:8080/feed")
    }

    /// A blank name is one that Foundation's trimming empties: TextScan.isWhitespace is the same set, scalar by scalar.
    @Test func blankNamesAreTheSameSetAsFoundations() {
        for value in 0...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            #expect(TextScan.isWhitespace(scalar) == CharacterSet.whitespacesAndNewlines.contains(scalar),
                    "U+\(String(value, radix: 16))")
        }
        #expect(FieldRules.nameProblem("\u{3000}\u{A0}\t\u{200B}", maxLength: 10) == "name must not be empty")
        #expect(FieldRules.nameProblem("\u{3000}x", maxLength: 10) == nil)
    }

    /// Numbers in plain decimal are read without Yams; everything else still follows its YAML 1.1
    /// rules (a leading 0 is octal, so 08 is no number).
    @Test(arguments: [("1", 1), ("7", 7), ("010", 8), ("1_000", 1000), ("0x10", 16), ("+12", 12),
                      ("1073741824", 1 << 30)])
    func wholeNumbers(text: String, value: Int) throws {
        let config = try ConfigLoader.parse(yaml: withLowSpeed(text), file: "ok.yaml")
        #expect(config.fetch.lowSpeedBytesPerSecond == value)
    }

    @Test(arguments: [("0", "0"), ("999999999999999999", "999999999999999999"),
                      ("9223372036854775807", "9223372036854775807")])
    func wholeNumbersOutOfRange(text: String, shown: String) {
        let found = issues(withLowSpeed(text))
        expectIssue(found, containing: "'low_speed_bytes_per_second' must be between 1 and 1073741824 (got \(shown))",
                    line: 3, source: nil)
    }

    private func withLowSpeed(_ text: String) -> String {
        oneSource().replacingOccurrences(of: "sources:", with: "fetch:\n  low_speed_bytes_per_second: \(text)\nsources:")
    }

    /// Integers are Yams' own reading (`Int.construct`: signs, bases, underscores, base 60), but a
    /// base-60 value over 10 characters, which Yams would multiply past `Int.max` and trap on, is
    /// no number.
    @Test func integersReadAsYamsDoes() {
        let texts = ["0", "1", "-1", "+1", "010", "08", "0o17", "0x1F", "0X1F", "-0x10", "+0b101", "0b2", "1_000",
                     "_1", "1__0", "1:30", "-1:30", "+1:30:15", "190:20:30", "1::2", ":1", "1:", "1:-5", "0x", "0b",
                     "0o", "-", "+", "", " 1", "1 ", "1.5", "1e3", "٣", "１", "9223372036854775807",
                     "9223372036854775808", "-9223372036854775808", "0x7FFFFFFFFFFFFFFF", "0x8000000000000000"]
        for text in texts {
            let scalar = Node.Scalar(text, Tag(.implicit), .plain)
            #expect(yamlInt(scalar) == Int.construct(from: scalar), "int \(text)")
        }
        #expect(yamlInt(Node.Scalar("99999999999:0:0:0:0:0", Tag(.implicit), .plain)) == nil)
        #expect(yamlInt(Node.Scalar("1_0:0:0:0", Tag(.implicit), .plain)) == 2_160_000)
        let found = issues(oneSource(extra: ["fetch_interval_hours: 99999999999:0:0:0:0:0"]))
        expectIssue(found, containing: "'fetch_interval_hours' must be a whole number", line: 8, source: "alpha")
    }

    /// Fractional numbers read without Yams answer what Yams' `Node.float` answers, and the
    /// spellings they leave alone (underscores, base 60, infinities) still go to Yams.
    @Test func plainFloatsReadAsYamsDoes() {
        let texts = ["0.5", "2", "1e3", "1E-2", "+2.5", "-0.5", ".5", "5.", "00.5", "1.2.3", "1e", "e", "+", "-", ".",
                     "", "1_000.5", "1:30", "1:30.5", ".inf", "-.inf", ".NaN", "0x10", "inf", "nan", "1e400", "1 ", "١"]
        var readHere = 0
        for text in texts {
            let yams = Node.scalar(.init(text, Tag(.implicit), .plain)).float
            if let here = plainFloat(text) {
                readHere += 1
                #expect(here == yams || (here.isNaN && yams?.isNaN == true), "\(text): \(here) / \(String(describing: yams))")
            }
            let read = plainFloat(text) ?? yams
            #expect(read == yams || (read?.isNaN == true && yams?.isNaN == true), "\(text)")
        }
        #expect(plainFloat("1_000.5") == nil && plainFloat("1:30") == nil && plainFloat(".inf") == nil)
        #expect(readHere >= 10)
    }

    /// The worst values of the shapes the byte rules read, near the 4 MB file cap: each rule is one
    /// linear pass (the user agent's 512-byte cap is checked before any scan of it), so the file
    /// cap bounds the work, and each value is refused for what it is.
    @Test func worstValuesNearTheFileCapAreRefusedByName() {
        func withFetch(_ line: String) -> String {
            oneSource().replacingOccurrences(of: "sources:", with: "fetch:\n  \(line)\nsources:")
        }
        let size = ConfigLoader.maxFileBytes - 1024
        // Digits only, so the plain-number reader takes it: Double() overflows to infinity.
        let digits = issues(withFetch("per_host_requests_per_second: " + String(repeating: "9", count: size)))
        expectIssue(digits, containing: "'per_host_requests_per_second' must be a number", line: 3, source: nil)
        // Printable ASCII over the cap, and blanks over the cap (the byte fast path does not apply).
        let agent = issues(withFetch("user_agent: \"" + String(repeating: "a", count: size) + "\""))
        expectIssue(agent, containing: "'user_agent' must be at most 512 characters", line: 3, source: nil)
        let blank = issues(withFetch("user_agent: \"" + String(repeating: " ", count: size) + "\""))
        expectIssue(blank, containing: "'user_agent' must not be empty", line: 3, source: nil)
        // One host label per two bytes, at the URL cap (longer URLs are refused before any scan).
        let labels = "https://" + String(repeating: "a.", count: (StoredURL.maxLength - 9) / 2) + "a/"
        #expect((try? FieldRules.storedURL(labels, field: "feed_url", allowing: []).get()) == StoredURL.check(labels))
    }

    /// The YAML 1.1 booleans: each word lower-case, capitalised and upper-case, nothing else.
    @Test func booleansAreTheEighteenYAMLSpellings() {
        var expected: [String: Bool] = [:]
        for (word, flag) in [("true", true), ("yes", true), ("on", true), ("false", false), ("no", false), ("off", false)] {
            for spelling in [word, word.prefix(1).uppercased() + word.dropFirst(), word.uppercased()] { expected[spelling] = flag }
        }
        #expect(expected.count == 18)
        for (spelling, flag) in expected { #expect(MappingView.yamlBoolean(spelling) == flag, "\(spelling)") }
        for other in ["tRUE", "yES", "oN", "y", "n", "1", "0", "true ", "", "~", "null", "ｔｒｕｅ"] {
            #expect(MappingView.yamlBoolean(other) == nil, "\(other)")
        }
    }

    /// The user-agent rule on bytes answers what the Foundation-based rule it replaced answers.
    @Test func userAgentRuleMatchesFoundations() {
        func old(_ agent: String) -> String? {
            if agent.trimmingCharacters(in: .whitespaces).isEmpty { return "must not be empty" }
            if agent.unicodeScalars.contains(where: HiddenCharacter.isHidden) { return "must not contain control characters" }
            if !agent.unicodeScalars.allSatisfy(\.isASCII) { return "must be ASCII" }
            if agent.utf8.count > 512 { return "must be at most 512 characters" }
            return nil
        }
        let agents = ["", " ", "   ", "\t", " \t ", "\n", "\u{3000}", "\u{A0}", "\u{2003} ", "\u{200B}", "a", " a ",
                      "bot/1 (+https://e.example)", "bot\r\nX-Evil: 1", "b\u{7F}", "é", "agent\u{202E}",
                      String(repeating: "a", count: 512), String(repeating: "a", count: 513),
                      String(repeating: " ", count: 600), String(repeating: "a ", count: 300)]
        for agent in agents {
            #expect(userAgentProblem(agent) == old(agent), "\(agent.debugDescription)")
        }
        // Every scalar alone: the blank test is Foundation's set exactly.
        for value in 0...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            #expect((userAgentProblem(String(Character(scalar))) == "must not be empty")
                        == CharacterSet.whitespaces.contains(scalar), "U+\(String(value, radix: 16))")
        }
    }

    @Test(arguments: ["08", "1.5", "12a", "1-2", "'12'", "9223372036854775808"])
    func notWholeNumbers(text: String) {
        let found = issues(oneSource(extra: ["fetch_interval_hours: \(text)"]))
        expectIssue(found, containing: "'fetch_interval_hours' must be a whole number", line: 8, source: "alpha")
    }
}

extension Result where Failure == FieldProblem {
    var problem: String? {
        if case .failure(let problem) = self { return problem.message }
        return nil
    }
}
