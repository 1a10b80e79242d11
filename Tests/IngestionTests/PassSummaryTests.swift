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

    static func databaseFailure(_ message: String) -> SourceOutcome.Result { .failed("database: \(message)") }

    /// A database outage is named as one, with its message, never as the network's; a single
    /// source failing on the database is said too (it is not that source's problem).
    @Test func databaseFailuresAreNamedAsSuch() {
        var down = Self.summary(Array(repeating: Self.databaseFailure("read-only (SQLSTATE 25006)"), count: 8))
        for index in down.outcomes.indices { down.outcomes[index].databaseFailure = true }
        #expect(down.allFailedNotice == "all 8 sources failed on the database: database: read-only (SQLSTATE 25006)")
        #expect(down.everyStoreFailed == true)

        var one = Self.summary([Self.databaseFailure("timeout")])
        one.outcomes[0].databaseFailure = true
        #expect(one.allFailedNotice?.hasPrefix("all 1 sources failed on the database") == true)

        var mixed = Self.summary([Self.databaseFailure("timeout"), .failed("HTTP status 500"), .failed("DNS")])
        mixed.outcomes[0].databaseFailure = true
        #expect(mixed.allFailedNotice == "all 3 sources failed: 1 on the database, 2 fetching")
        // The one store tried failed: readiness must say so, whatever the fetches did.
        #expect(mixed.everyStoreFailed == true)
    }

    @Test func everyStoreFailedCountsOnlySourcesThatStored() {
        #expect(Self.summary([.failed("HTTP status 500")]).everyStoreFailed == nil)
        #expect(Self.summary([]).everyStoreFailed == nil)
        var some = Self.summary([Self.databaseFailure("timeout"), .notModified])
        some.outcomes[0].databaseFailure = true
        #expect(some.everyStoreFailed == false)
        #expect(Self.summary([.updated, .failed("HTTP status 404")]).everyStoreFailed == false)
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
