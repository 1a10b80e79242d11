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
