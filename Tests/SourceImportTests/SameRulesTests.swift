import AddressPolicy
import PulseConfig
@testable import SourceImport
import Testing

/// A row is validated by the code that reads feeds.yaml's sources: the same values give the same
/// messages, whichever way they come.
@Suite("one set of source rules")
struct SameRulesTests {
    @Test func aTSVRowAndAYAMLSourceGetTheSameMessages() throws {
        let yaml = """
            version: 1
            sources:
              - slug: Bad_Slug
                name: Name
                feed_url: http://[::1
                website_url: javascript:alert(1)
                category: sprots
                language: eng
                fetch_interval_hours: 200
                max_content_length: 0
                active: sometimes
                language_detection: maybe
            """
        var fromYAML: [String] = []
        do {
            _ = try ConfigLoader.parse(yaml: yaml, file: "feeds.yaml")
        } catch let error as ConfigError {
            fromYAML = error.issues.map(\.message)
        }
        let row = "Bad_Slug\tName\thttp://[::1\tjavascript:alert(1)\tsprots\teng\t200\t0\tsometimes\tmaybe"
        let fromTSV = problems(tsv(row), as: .tsv).map { String($0.drop { $0 != " " }.dropFirst()) }
        #expect(fromYAML.count == 9)
        #expect(fromTSV == fromYAML)
    }

    /// An intranet feed (an IP-literal host the fetcher refuses) is refused in a file as in
    /// feeds.yaml, naming the field and the value, and imported where the operator allows its network.
    @Test func anIntranetFeedNeedsItsNetworkAllowed() throws {
        let row = tsv("intra\tIntranet\thttp://10.1.2.3/feed.xml\t\tworld\ten")
        #expect(problems(row, as: .tsv) == ["2: feed_url 'http://10.1.2.3/feed.xml' is refused: its host is in a range the fetcher "
                                            + "refuses (private network (RFC 1918)); an intranet feed's network can be allowed with --allow-networks"])
        var allowing = settings()
        allowing.allowedNetworks = try #require(CIDR.parseList("10.0.0.0/8"))
        #expect(try sources(row, as: .tsv, settings: allowing).map(\.feedURL) == ["http://10.1.2.3/feed.xml"])
    }
}
