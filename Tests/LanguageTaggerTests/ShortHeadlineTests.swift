import Testing
@testable import LanguageTagger

/// Headlines of 2-6 words, title only (feeds without a description). Measured raw CLD2 answers
/// (full tables, best effort): 23 of 32 right, and all 32 flagged reliable by CLD2, including
/// the wrong ones: es "Bolsa cierra en alza" -> tk, "Huelga general" -> en, "Incendio arrasa
/// una nave industrial" -> en; fr "La Bourse de Paris recule" -> en; pt "Greve dos professores
/// continua" -> fy; it "Il governo approva la manovra" -> pt; gl "A Bolsa pecha en alza" -> tk;
/// nl "Kabinet akkoord over begroting" -> en; ro "Bursa închide pe plus" -> en.
/// All score under `minimumTextBytes`, so every one keeps the source's language.
@Suite("Title-only short headlines")
struct ShortHeadlineTests {
    @Test("the fixture has short headlines in every required language")
    func coverage() {
        #expect(Fixtures.shortTitles.count == 32)
        #expect(Set(Fixtures.shortTitles.map(\.language)) == Set(DetectionTests.required))
    }

    @Test("a short headline is never trusted: the configured language is kept", arguments: Fixtures.shortTitles)
    func fallsBackToConfigured(headline: ShortTitle) throws {
        // Configured = the headline's real language (the usual case) and a wrong one (a source
        // carrying a foreign item): both times the configured language wins over CLD2's guess.
        let other = headline.language == "en" ? "pt" : "en"
        for configured in [headline.language, other] {
            let decision = LanguageTagger.decide(title: headline.title, summary: nil, body: nil,
                                                 configured: configured, detectionEnabled: true)
            #expect(decision.code == configured)
            #expect(decision.source == .configured(reason: .unreliable))
            let detected = try #require(decision.detected)
            #expect(detected.textBytes < LanguageTagger.minimumTextBytes)
        }
    }

    @Test("the full sample titles (50-72 letter bytes) are long enough to be trusted", arguments: Fixtures.samples)
    func fullTitlesTrusted(sample: Sample) {
        let decision = LanguageTagger.decide(title: sample.title, summary: nil, body: nil,
                                             configured: sample.language == "en" ? "pt" : "en", detectionEnabled: true)
        #expect(decision.code == sample.language)
        #expect(decision.source == .detected)
    }
}
