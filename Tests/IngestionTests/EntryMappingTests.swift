import FeedParser
import Foundation
import Ingestion
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
        let mapped = EntryMapping(now: now, retentionDays: 7, configuredLanguage: "pt", detectLanguage: true).map(entries)
        #expect(mapped.tooOld == 1)
        #expect(mapped.candidates.count == 3)
        // Spanish in a Portuguese source is tagged Spanish; too little text keeps the source's.
        #expect(mapped.candidates.map(\.language) == ["es", "pt", nil])
        #expect(mapped.languageDisagreements == 1)

        let pinned = EntryMapping(now: now, retentionDays: 7, configuredLanguage: "pt", detectLanguage: false).map(entries)
        #expect(pinned.candidates.allSatisfy { $0.language == nil })
        #expect(pinned.languageDisagreements == 0)
    }
}
