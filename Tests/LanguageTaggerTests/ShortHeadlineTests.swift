import Testing
@testable import LanguageTagger

/// Headlines of 2-6 words, title only (feeds without a description). The rule trusts CLD2 only
/// where CLD2 itself (without its best-effort flag) calls the answer reliable. That lets a short
/// English item in a Portuguese source be stored as English, which the old 48-letter-byte gate
/// never allowed; the price is CLD2's own short-text misses in a source of the right language
/// (es "Incendio arrasa una nave industrial" -> en, fr "La Bourse de Paris recule" -> en, it "Il
/// governo approva la manovra" -> pt, gl "A Bolsa pecha en alza" -> tk, nl "Kabinet akkoord over
/// begroting" -> en, ro "Bursa închide pe plus" -> en). `make bench-language` weighs both.
@Suite("Title-only short headlines")
struct ShortHeadlineTests {
    static let englishTitles = Fixtures.shortTitles.filter { $0.language == "en" }
        + Fixtures.samples(in: "en").map { ShortTitle(language: "en", title: $0.title) }

    @Test("the fixture has short headlines in every required language")
    func coverage() {
        #expect(Fixtures.shortTitles.count == 32)
        #expect(Set(Fixtures.shortTitles.map(\.language)) == Set(DetectionTests.required))
    }

    @Test("a short English headline in a pt, es or fr source is stored as English", arguments: englishTitles)
    func shortEnglishInForeignSource(headline: ShortTitle) throws {
        for configured in ["pt", "es", "fr"] {
            let decision = LanguageTagger.decide(title: headline.title, summary: nil, body: nil,
                                                 configured: configured, detectionEnabled: true)
            #expect(decision.code == "en", "\(headline) in a \(configured) source")
            #expect(decision.source == .detected && decision.disagrees)
        }
    }

    @Test("in a source of their own language, short headlines keep it apart from CLD2's known misses")
    func ownSourceAccuracy() {
        let decisions = Fixtures.shortTitles.map { headline in
            (headline, LanguageTagger.decide(title: headline.title, summary: nil, body: nil,
                                             configured: headline.language, detectionEnabled: true))
        }
        let wrong = decisions.filter { $0.1.code != $0.0.language }
        #expect(wrong.count <= 6, "\(wrong.map { "\($0.0) -> \($0.1.code)" })")
        // A miss is always a trusted CLD2 answer: the fallback itself never makes an item wrong.
        #expect(wrong.allSatisfy { $0.1.source == .detected })
    }

    @Test("the full sample titles (50-72 letter bytes) in a foreign source are mostly detected")
    func fullTitlesInForeignSource() {
        let decisions = Fixtures.samples.map { sample in
            (sample, LanguageTagger.decide(title: sample.title, summary: nil, body: nil,
                                           configured: sample.language == "en" ? "pt" : "en", detectionEnabled: true))
        }
        let right = decisions.filter { $0.1.code == $0.0.language }.count
        #expect(Double(right) / Double(decisions.count) >= 0.9, "\(right) of \(decisions.count)")
    }
}
