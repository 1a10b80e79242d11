import FeedParser
import Foundation
import Ingestion
import LanguageTagger
import Testing

struct EntryMappingTests {
    let now = Date(timeIntervalSince1970: 1_790_000_000)

    func entry(_ title: String, _ summary: String, daysAgo: Double) -> FeedEntry {
        var entry = FeedEntry(title: title, url: "https://news.example.com/\(abs(title.hashValue))")
        entry.summary = summary
        entry.publishedAt = now.addingTimeInterval(-daysAgo * 86_400)
        return entry
    }

    @Test func oldItemsAreLeftOutAndEachItemGetsItsOwnLanguage() {
        let entries = [
            entry("El Gobierno aprueba la reforma de las pensiones tras meses de negociación",
                  "La medida, pactada con los sindicatos, eleva las cotizaciones de los salarios más altos y entrará en vigor el próximo año.",
                  daysAgo: 1),
            entry("Governo anuncia novo pacote de investimentos em infraestrutura nas regiões do Norte",
                  "O plano prevê obras em estradas, portos e ferrovias ao longo dos próximos quatro anos, segundo o ministério.",
                  daysAgo: 2),
            entry("Old story that was pruned already but is still listed in the feed",
                  "It must not come back as new.", daysAgo: 9),
            entry("Curto", "Sem texto suficiente.", daysAgo: 0.5),
        ]
        let mapped = EntryMapping(now: now, retentionDays: 7).map(entries)
        #expect(mapped.tooOld == 1)
        #expect(mapped.candidates.count == 3)
        // The mapping leaves the language to the row's one decision (after enrichment); with no
        // page read: Spanish in a Portuguese source is tagged Spanish; too little text keeps the source's.
        #expect(mapped.candidates.allSatisfy { $0.language == nil })
        let decisions = mapped.candidates.map {
            LanguageTagger.decideRow(title: $0.title, summary: $0.summary, body: $0.content, page: nil,
                                     configured: "pt", detectionEnabled: true)
        }
        #expect(decisions.map { $0.source == .detected ? $0.code : nil } == ["es", "pt", nil])
        #expect(decisions.filter(\.disagrees).count == 1)

        let pinned = mapped.candidates.map {
            LanguageTagger.decideRow(title: $0.title, summary: $0.summary, body: $0.content, page: nil,
                                     configured: "pt", detectionEnabled: false)
        }
        #expect(pinned.allSatisfy { $0.source != .detected && $0.code == "pt" && !$0.disagrees })
    }
}
