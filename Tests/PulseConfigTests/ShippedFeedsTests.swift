import Foundation
import PulseModel
import Testing

@testable import PulseConfig

@Suite("shipped feeds.yaml")
struct ShippedFeedsTests {
    func loadShipped() throws -> PulseConfiguration {
        let root = try #require(packageRootWithFeeds(), "no directory with feeds.yaml and Package.swift above the tests")
        return try ConfigLoader.load(path: root.appendingPathComponent("feeds.yaml").path)
    }

    @Test func loadsWithTheExpectedShape() throws {
        let config = try loadShipped()
        #expect(config.sources.count == 136)
        #expect(config.categories == CategoryConfig.contractCategories)
        let languages = Dictionary(grouping: config.sources, by: \.language).mapValues(\.count)
        #expect(languages == ["en": 52, "pt": 43, "es": 41])
        #expect(config.sources.allSatisfy { $0.impliedActive })
        #expect(Set(config.sources.map(\.slug)).count == 136)
        #expect(config.defaults.fetchIntervalHours == 2 && config.defaults.maxContentLength == 200_000)
        #expect(config.defaults.languageDetection)
        #expect(config.fetch == FetchSettings())
        #expect(config.schedule == ScheduleSettings())
        #expect(config.enrichment == EnrichmentConfig())
        #expect(config.retention == RetentionSettings())
        #expect(config.pruneUnlisted == false)
    }

    @Test func defaultsAreAppliedAndMediaPollsEverySixHours() throws {
        let config = try loadShipped()
        for source in config.sources {
            #expect(source.fetchIntervalHours == (source.kind == .articles ? 2 : 6), "\(source.slug)")
            #expect(source.maxContentLength == nil)
            #expect(source.languageDetection)
            #expect(source.websiteURL != nil)
        }
        #expect(config.sources.count { $0.kind == .podcast } == 41)
        #expect(config.sources.count { $0.kind == .video } == 37)
    }

    @Test func summaryOfTheShippedFile() throws {
        let text = try loadShipped().summary()
        #expect(text.contains("sources: 136 (136 active, 0 inactive)\n"))
        #expect(text.contains("by kind: articles 58, podcast 41, video 37\n"))
        #expect(text.contains("by language:\n  en  52\n  pt  43\n  es  41\n"))
    }

    /// The YAML must say exactly what the TSV says (it is generated from it).
    @Test(.enabled(if: sourcesTSV() != nil, "shared/data/pulse-sources.tsv not found"))
    func matchesTheSourceTable() throws {
        let config = try loadShipped()
        let text = try String(contentsOf: try #require(sourcesTSV()), encoding: .utf8)
        let rows = text.split(separator: "\n").dropFirst().map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        #expect(rows.count == 136)
        let bySlug = Dictionary(uniqueKeysWithValues: config.sources.map { ($0.slug, $0) })
        for row in rows {
            let source = try #require(bySlug[row[0]], "missing \(row[0])")
            #expect(source.name == row[1])
            #expect(source.feedURL == row[2])
            #expect(source.websiteURL == row[3])
            #expect(source.categorySlug == row[4])
            #expect(source.language == row[5])
            #expect(source.fetchIntervalHours == Int(row[6]))
        }
    }
}
