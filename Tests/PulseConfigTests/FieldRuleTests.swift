import Foundation
import Testing
import Yams

@testable import PulseConfig

/// The byte-level field rules (URLs, names, numbers) against the Foundation-based rules they
/// replaced, so the rewrite for speed accepts nothing the old rules refused.
struct FieldRuleTests {
    @Test(arguments: [
        "HTTPS://EXAMPLE.COM/feed", "http://example.com:1/", "https://example.com:65535/a", "https://example.com./",
        "https://xn--bcher-kva.example/", "https://1.2.3.4/", "https://[2001:db8::1]/", "https://[::ffff:1.2.3.4]:443/",
        "https://example.com?q", "https://example.com#top", "https://e.com/a\"b", "https://e.com/%zz",
        "https://" + String(repeating: "a", count: 63) + ".example/", "https://a.XN--BCHER-KVA.example/",
    ])
    func acceptedURLs(url: String) {
        #expect(FieldRules.urlProblem(url, field: "feed_url") == nil)
    }

    @Test(arguments: [
        ("https://[:::::]/", "invalid IPv6 host"), ("https://[1.2]/", "invalid IPv6 host"),
        ("https://[fe80::1%25eth0]/", "invalid IPv6 host"), ("https://[::1]x/", "invalid host"),
        ("https://[::1/", "unterminated IPv6 host"), ("https://example.com:/", "invalid port"),
        ("https://example.com:0/", "invalid port"), ("https://example.com:65536/", "invalid port"),
        ("https://example.com:8a/", "invalid port"), ("https://e..com/", "invalid host name"),
        ("https://" + String(repeating: "a", count: 64) + ".example/", "invalid host name"),
        ("https://e_x.com/", "invalid host name"), ("https://:80/", "has no host"),
        ("https:/example.com", "absolute http:// or https:// URL"), ("xhttps://example.com", "absolute http://"),
        ("https://a@b.com", "user name or password"), ("https://xn--80./", "not a well-formed URL"), ("https://e.com/" + String(repeating: "a", count: 2048), "longer than"),
    ])
    func refusedURLs(url: String, reason: String) {
        let problem = FieldRules.urlProblem(url, field: "feed_url")
        #expect(problem?.contains(reason) == true, "\(url): \(problem ?? "accepted")")
    }

    /// The worst shapes, at the 2,048-byte cap: every scan over a URL is a single pass, so the
    /// cap (checked first, on the byte count) bounds the work; a longer value is refused unread,
    /// and only hosts that passed the 253-byte name rule reach Foundation's IDNA check.
    @Test func worstShapesAtTheLengthCap() {
        func padded(_ prefix: String, _ unit: String, _ suffix: String = "") -> String {
            var url = prefix
            while url.utf8.count + unit.utf8.count + suffix.utf8.count <= FieldRules.maxURLLength { url += unit }
            return url + suffix
        }
        let cases: [(String, String?)] = [
            (padded("https://", "a."), "invalid host name"),
            (padded("https://", "xn--a."), "invalid host name"),
            (padded("https://", ":"), "invalid port"),
            (padded("https://[", ":", "]"), "invalid IPv6 host"),
            (padded("https://", "@"), "user name or password"),
            (padded("", ":/"), "absolute http:// or https:// URL"),
            (padded("https://xn--bcher-kva.example/", "%"), nil),
            (padded("https://e.com/", "a/"), nil),
        ]
        for (url, reason) in cases {
            #expect(url.utf8.count <= FieldRules.maxURLLength && url.utf8.count > FieldRules.maxURLLength - 8)
            let problem = FieldRules.urlProblem(url, field: "feed_url")
            if let reason {
                #expect(problem?.contains(reason) == true, "\(url.prefix(40)): \(problem ?? "accepted")")
            } else {
                #expect(problem == nil, "\(url.prefix(40)): \(problem ?? "")")
            }
        }
        let huge = "https://e.com/" + String(repeating: "a", count: 1 << 20)
        #expect(FieldRules.urlProblem(huge, field: "feed_url") == "feed_url is longer than 2048 characters")
    }

    /// Random URLs built from the characters that matter to the rules: wherever the new rules
    /// accept, the old ones did; they differ only on bracketed IPv6 literals, which the old rules
    /// took on their character set alone.
    @Test func neverLaxerThanTheRulesTheyReplaced() {
        let pieces = ["http", "https", "HTTP", "://", ":", "/", "?", "#", "@", "[", "]", ".", "-", "a", "Z", "9", "0",
                      "::1", "1.2.3.4", "example", "com", "%41", "80", "65536", "_", "xn--", "XN--", "bcher-kva", "ftp"]
        // A fixed linear congruential sequence, so a failure names a URL the next run builds again.
        var state: UInt64 = 0x5EED_0F_0C0F
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        var accepted = 0
        for _ in 0..<20_000 {
            var url = ["http", "https", "HTTP"][next(3)] + "://"
            for _ in 0..<(1 + next(8)) { url += pieces[next(pieces.count)] }
            let new = FieldRules.urlProblem(url, field: "feed_url")
            let old = foundationURLProblem(url)
            if new == nil {
                accepted += 1
                #expect(old == nil, "newly accepted: \(url)")
            } else if old == nil {
                #expect(new?.contains("invalid IPv6 host") == true, "newly refused: \(url): \(new ?? "")")
            } else if new != old {
                // A bracketed host is now first checked as an address, before what follows it.
                #expect(new?.contains("invalid IPv6 host") == true && url.contains("["), "\(url): \(new ?? "") / \(old ?? "")")
            }
        }
        #expect(accepted > 1_000)
    }

    /// A blank name is one that Foundation's trimming empties: the same set, scalar by scalar.
    @Test func blankNamesAreTheSameSetAsFoundations() {
        for value in 0...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            #expect(FieldRules.isBlank(scalar) == CharacterSet.whitespacesAndNewlines.contains(scalar),
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
        let labels = "https://" + String(repeating: "a.", count: (FieldRules.maxURLLength - 9) / 2) + "a/"
        #expect(labels.utf8.count <= FieldRules.maxURLLength)
        #expect(FieldRules.urlProblem(labels, field: "feed_url")?.contains("invalid host name") == true)
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
            if agent.unicodeScalars.contains(where: FieldRules.isControlOrBidi) { return "must not contain control characters" }
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

/// The URL rules as they were before they moved to bytes (hand checks on Characters, then
/// URLComponents), kept here as the reference.
private func foundationURLProblem(_ url: String) -> String? {
    let field = "feed_url"
    let shown = FieldRules.printable(url)
    if url.isEmpty { return "\(field) must not be empty" }
    if url.unicodeScalars.count > FieldRules.maxURLLength {
        return "\(field) is longer than \(FieldRules.maxURLLength) characters"
    }
    if url.utf8.contains(where: { $0 <= 0x20 || $0 >= 0x7F }) { return "not tested here" }
    let lowered = url.lowercased()
    guard let schemeEnd = lowered.firstRange(of: "://"),
        ["http", "https"].contains(String(lowered[..<schemeEnd.lowerBound]))
    else { return "\(field) '\(shown)' must be an absolute http:// or https:// URL" }
    let authority = url[schemeEnd.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
    if authority.contains("@") { return "\(field) must not contain a user name or password (value not shown)" }
    var host = Substring(authority)
    var port: Substring?
    var problem: String?
    if host.hasPrefix("[") {
        if let close = host.firstIndex(of: "]") {
            let literal = host[host.index(after: host.startIndex)..<close]
            if literal.isEmpty || !literal.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) {
                problem = "has an invalid IPv6 host"
            } else {
                let after = host[host.index(after: close)...]
                if !after.isEmpty {
                    if after.hasPrefix(":") { port = after.dropFirst() } else { problem = "has an invalid host" }
                }
                host = "ip6"
            }
        } else {
            problem = "has an unterminated IPv6 host"
        }
    } else if let colon = host.firstIndex(of: ":") {
        port = host[host.index(after: colon)...]
        host = host[..<colon]
    }
    if problem == nil, let port {
        if port.isEmpty || port.count > 5 || !port.allSatisfy({ $0.isASCII && $0.isNumber })
            || !(1...65535).contains(Int(port) ?? 0) {
            problem = "has an invalid port"
        }
    }
    if problem == nil, host.isEmpty { problem = "has no host" }
    if problem == nil {
        let labels = (host.hasSuffix(".") ? host.dropLast() : host).split(separator: ".", omittingEmptySubsequences: false)
        let valid = labels.allSatisfy { label in
            !label.isEmpty && label.count <= 63 && label.first != "-" && label.last != "-"
                && label.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
        }
        if !valid || host.count > 253 { problem = "has an invalid host name" }
    }
    if let problem { return "\(field) '\(shown)' \(problem)" }
    guard let components = URLComponents(string: url), components.host?.isEmpty == false else {
        return "\(field) '\(shown)' is not a well-formed URL"
    }
    return nil
}
