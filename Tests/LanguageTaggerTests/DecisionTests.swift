import Testing
@testable import LanguageTagger

@Suite("Choosing articles.language")
struct DecisionTests {
    static func decide(_ sample: Sample, configured: String, enabled: Bool = true, body: Bool = false) -> LanguageDecision {
        LanguageTagger.decide(title: sample.title, summary: sample.summary, body: body ? sample.body : nil,
                              configured: configured, detectionEnabled: enabled)
    }

    @Test("a Portuguese source carrying a Spanish article tags it es and flags the disagreement")
    func spanishInPortugueseSource() throws {
        for sample in Fixtures.samples(in: "es") {
            let decision = Self.decide(sample, configured: "pt")
            #expect(decision.code == "es")
            #expect(decision.source == .detected)
            #expect(decision.disagrees)
            let detected = try #require(decision.detected)
            #expect(detected.reliable)
        }
    }

    /// No hints are passed, so the configured language cannot pull an article towards itself
    /// inside CLD2's es/pt/gl close set.
    @Test("es, pt and gl articles keep their own language whichever of the three is configured")
    func closeSetWithoutHints() {
        for language in ["es", "pt", "gl"] {
            for configured in ["es", "pt", "gl"] {
                for sample in Fixtures.samples(in: language) {
                    let decision = Self.decide(sample, configured: configured)
                    #expect(decision.code == language, "\(sample) configured \(configured)")
                    #expect(decision.disagrees == (language != configured))
                }
            }
        }
    }

    @Test("a mixed feed gives each item its own language")
    func mixedFeed() {
        let feed = zip(Fixtures.samples(in: "en"), Fixtures.samples(in: "pt")).flatMap { [$0, $1] }
            + Fixtures.samples(in: "ca")
        let codes = feed.map { Self.decide($0, configured: "en").code }
        #expect(codes == feed.map(\.language))
        #expect(Set(codes) == ["en", "pt", "ca"])
    }

    @Test("language_detection: off pins the configured language")
    func disabledPins() {
        let sample = Fixtures.samples(in: "es")[0]
        let decision = Self.decide(sample, configured: "pt", enabled: false, body: true)
        #expect(decision == LanguageDecision(code: "pt", source: .configured(reason: .disabled), detected: nil, disagrees: false))
    }

    @Test("language-neutral short text keeps the configured language", arguments: [
        "Brexit", "Huelga general", "Live updates", "Oscars 2026", "Greve geral",
    ])
    func shortTextFallsBack(title: String) throws {
        for configured in ["en", "pt", "es"] {
            let decision = LanguageTagger.decide(title: title, summary: nil, body: nil, configured: configured, detectionEnabled: true)
            #expect(decision.code == configured)
            #expect(decision.source != .detected)
            #expect(decision.disagrees == false)
            let detected = try #require(decision.detected)
            #expect(detected.reliable == false)
        }
    }

    @Test("a summary that repeats the title, or a body that repeats the summary, is counted once")
    func repeatsAreRemovedBeforeDetection() {
        let title = "Governo aprova novo orçamento para a saúde"
        let once = LanguageTagger.detectionBytes(title: title, summary: nil, body: nil)
        let repeated = LanguageTagger.detectionBytes(title: title, summary: title + ".", body: "\(title)\n\(title.uppercased())")
        #expect(repeated == once)
        let extra = LanguageTagger.detectionBytes(title: title, summary: "O texto segue para o Senado.", body: nil)
        #expect(String(decoding: extra, as: UTF8.self) == title + "\nO texto segue para o Senado.")
    }

    /// Worst shape for the repeat check: a summary of 2 MB of one-word sentences. Only each part's
    /// capped prefix (4 KB) is split and remembered, so the work is bounded by the caps, not the
    /// input: the sentence after the summary's first 4 KB was never read, and the body's copy of
    /// it is kept (it would be dropped as a repeat if the whole summary had been split).
    @Test func onlyEachPartsCappedPrefixIsSplit() {
        let flood = (0..<400_000).map { "w\($0)." }.joined(separator: " ")
        let late = "Câmara aprova orçamento."
        let bytes = LanguageTagger.detectionBytes(title: "Título", summary: flood + " " + late, body: late)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.hasSuffix("\n" + late))
        #expect(bytes.count <= "Título\n".utf8.count + LanguageTagger.summaryByteCap + 1 + late.utf8.count)
    }

    /// The bytes CLD2 gets, exactly: new sentences of one part joined by single spaces (their
    /// leading spaces dropped), parts joined by a line break, control characters as spaces, and a
    /// part cut at its cap on a scalar boundary.
    @Test func detectionBytesAreJoinedCleanedAndCapped() {
        let head = "  Primeira frase.\n\tSegunda\u{0}frase!  Governo aprova? "
        let bytes = LanguageTagger.detectionBytes(title: "Governo aprova?", summary: "Governo aprova?\u{1B}",
                                                  body: head + String(repeating: "é", count: 3_000))
        // The body's first 4,096 bytes hold (4,096 - head) / 2 whole "é"s.
        let fitting = (LanguageTagger.bodyByteCap - head.utf8.count) / 2
        #expect(String(decoding: bytes, as: UTF8.self)
                == "Governo aprova?\nPrimeira frase. Segunda frase! " + String(repeating: "é", count: fitting))
    }

    @Test("no letters at all is an abstention", arguments: ["", "2026 - 1:0 (3:2)", "🔥🔥🔥 !!!", "   "])
    func abstains(title: String) throws {
        let decision = LanguageTagger.decide(title: title, summary: "", body: nil, configured: "es", detectionEnabled: true)
        #expect(decision.code == "es")
        #expect(decision.source == .configured(reason: .abstained))
        let detected = try #require(decision.detected)
        #expect(detected.code == nil)
        #expect(detected.rawCode == "un")
        #expect(detected.reliable == false)
    }

    @Test("a language without a two-letter code keeps the configured one")
    func notTwoLetter() throws {
        let decision = LanguageTagger.decide(
            title: "Ang mga mangingisda sa lungsod nagreklamo tungod sa kakulang sa isda karong tuiga",
            summary: "Nangayo sila og tabang gikan sa gobyerno.", body: nil, configured: "en", detectionEnabled: true)
        #expect(decision.code == "en")
        #expect(decision.source == .configured(reason: .notTwoLetter))
        let detected = try #require(decision.detected)
        #expect(detected.rawCode == "ceb")
        #expect(detected.code == nil)
        #expect(detected.reliable)
    }

    @Test("the configured language is normalised to a column value")
    func configuredNormalised() {
        #expect(LanguageTagger.configuredCode("pt") == "pt")
        #expect(LanguageTagger.configuredCode("PT") == "pt")
        #expect(LanguageTagger.configuredCode("pt-BR") == "pt")
        #expect(LanguageTagger.configuredCode("es_419") == "es")
        #expect(LanguageTagger.configuredCode("iw") == "he")
        #expect(LanguageTagger.configuredCode("english") == "en")
        #expect(LanguageTagger.configuredCode("") == "en")
        #expect(LanguageTagger.configuredCode("zz") == "en")
    }

    @Test("the stored code always matches ^[a-z]{2}$")
    func alwaysColumnCode() {
        let odd = ["", "\u{0}\u{1}\u{7}", "\u{202E}txet desrever\u{202C}", "🙂", "https://example.com/a?b=c",
                   "市政府宣布將在明年興建", "Ua hoʻomaka ka hui i ke kūkulu ʻana i ka hale kula hou ma ke kaona"]
        let samples = Fixtures.samples.map { ($0.title, $0.summary as String?, $0.body as String?) }
            + odd.map { ($0, $0 as String?, nil as String?) }
        #expect(samples.count > 20)
        for configured in ["en", "PT-br", "xx", ""] {
            for enabled in [true, false] {
                for (title, summary, body) in samples {
                    let decision = LanguageTagger.decide(title: title, summary: summary, body: body,
                                                         configured: configured, detectionEnabled: enabled)
                    #expect(isColumnCode(decision.code), "\(title) -> \(decision.code)")
                }
            }
        }
    }
}
