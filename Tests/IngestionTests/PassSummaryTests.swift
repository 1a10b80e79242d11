import Ingestion
import Testing

/// A pass where every source failed says so (the network, not the feeds, is the likely cause).
struct PassSummaryTests {
    static func summary(_ results: [SourceOutcome.Result]) -> PassSummary {
        var summary = PassSummary()
        summary.outcomes = results.enumerated().map { SourceOutcome(slug: "s\($0.offset)", result: $0.element) }
        return summary
    }

    @Test func everySourceFailingIsNamedOnce() {
        let down = Self.summary(Array(repeating: .failed("DNS lookup failed for a.example"), count: 136))
        #expect(down.allFailedNotice == "all 136 sources failed: is the network reachable?")
        #expect(Self.summary([.failed("HTTP status 500"), .updated]).allFailedNotice == nil)
        #expect(Self.summary([.failed("HTTP status 500"), .notModified]).allFailedNotice == nil)
        // One source failing is that source's problem (--once --source SLUG).
        #expect(Self.summary([.failed("HTTP status 500")]).allFailedNotice == nil)
        #expect(Self.summary([]).allFailedNotice == nil)
    }
}

extension PassSummaryTests {
    /// One progress line per pass: enrichment, languages and the rate, not a log line per source.
    @Test func passLineCarriesEnrichmentLanguagesAndRate() {
        var summary = Self.summary([.updated, .updated])
        summary.outcomes[0].itemsSeen = 30
        summary.outcomes[0].inserted = 20
        summary.outcomes[0].enriched = 18
        summary.outcomes[0].languageDisagreements = 2
        summary.outcomes[1].itemsSeen = 30
        summary.duration = .seconds(3)
        #expect(summary.line == "total: 2 sources, 0 failed, 0 not modified, 60 items, 20 new, 18 enriched, "
            + "2 in another language, 3.0 s, 20 items/s")
    }
}
