import Foundation
import Testing

@testable import PulseConfig

@Suite("loading files")
struct LoaderTests {
    @Test func explicitPathWinsEvenWhenMissing() {
        #expect(ConfigLoader.resolvePath(explicit: "/tmp/x.yaml", fileExists: { _ in false }) == "/tmp/x.yaml")
    }

    @Test func defaultOrderIsWorkingDirectoryThenEtc() {
        #expect(ConfigLoader.resolvePath(explicit: nil, fileExists: { _ in true }) == "feeds.yaml")
        #expect(ConfigLoader.resolvePath(explicit: nil, fileExists: { $0.hasPrefix("/etc/") })
                == "/etc/pulse-ingest/feeds.yaml")
        #expect(ConfigLoader.resolvePath(explicit: "", fileExists: { $0 == "feeds.yaml" }) == "feeds.yaml")
        #expect(ConfigLoader.resolvePath(explicit: nil, fileExists: { _ in false }) == nil)
    }

    @Test func missingFileNamesThePath() {
        let path = "/nonexistent-\(UUID().uuidString)/feeds.yaml"
        let error = #expect(throws: ConfigError.self) { try ConfigLoader.load(path: path) }
        #expect(error?.issues.count == 1)
        #expect(error?.issues.first?.message.contains("cannot read configuration file '\(path)': no such file") == true)
        #expect(error?.description.contains(path) == true)
    }

    @Test func loadsAFileAndUsesItsPathInMessages() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pulseconfig-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let good = directory.appendingPathComponent("good.yaml")
        try oneSource().write(to: good, atomically: true, encoding: .utf8)
        #expect(try ConfigLoader.load(path: good.path).sources.map(\.slug) == ["alpha"])

        let bad = directory.appendingPathComponent("bad.yaml")
        try oneSource(replacing: "language", with: "EN").write(to: bad, atomically: true, encoding: .utf8)
        let error = #expect(throws: ConfigError.self) { try ConfigLoader.load(path: bad.path) }
        #expect(error?.issues.first?.description.hasPrefix("\(bad.path):7: source 'alpha': language 'EN'") == true)

        let binary = directory.appendingPathComponent("binary.yaml")
        try Data([0x76, 0xFF, 0xFE, 0x00]).write(to: binary)
        let binaryError = #expect(throws: ConfigError.self) { try ConfigLoader.load(path: binary.path) }
        #expect(binaryError?.issues.first?.message.contains("not valid UTF-8") == true)

        let emptyFile = directory.appendingPathComponent("empty.yaml")
        try Data().write(to: emptyFile)
        let emptyError = #expect(throws: ConfigError.self) { try ConfigLoader.load(path: emptyFile.path) }
        #expect(emptyError?.issues.first?.message.contains("empty") == true)

        let directoryError = #expect(throws: ConfigError.self) { try ConfigLoader.load(path: directory.path) }
        #expect(directoryError?.description.contains(directory.path) == true)
    }

    @Test func oversizedInputIsRefusedBeforeParsing() {
        let huge = "# " + String(repeating: "x", count: ConfigLoader.maxFileBytes) + "\n"
        expectIssue(issues(huge), containing: "larger than", line: nil, source: nil)
    }

    @Test func deepNestingIsRefusedWithoutCrashing() {
        // libyaml stops at 1000 levels; just below that the composed tree must still be walkable
        // on a test thread's small stack.
        let nearLimit = "version: 1\nsources: " + String(repeating: "[", count: 990) + String(repeating: "]", count: 990)
        expectIssue(issues(nearLimit), containing: "source' must be a mapping", line: 2, source: "#1")
        let overLimit = "x: " + String(repeating: "[", count: 5000)
        expectIssue(issues(overLimit), containing: "YAML syntax error", line: 1, source: nil)
    }

    @Test func summaryIsStableText() throws {
        let yaml = """
            version: 1
            sources:
              - { slug: a, name: A, feed_url: "https://e.com/a", category: world, language: pt }
              - { slug: b, name: B, feed_url: "https://e.com/b", category: podcasts, language: en, active: false }
              - { slug: c, name: C, feed_url: "https://e.com/c", category: videos, language: pt }
            """
        let config = try ConfigLoader.parse(yaml: yaml, file: "ok.yaml")
        let summary = ConfigSummary(config)
        #expect(summary.byLanguage == [.init(key: "pt", count: 2), .init(key: "en", count: 1)])
        #expect(config.summary() == """
            configuration version 1
            categories: 10
            sources: 3 (2 active, 1 inactive)
            by kind: articles 1, podcast 1, video 1
            by language:
              pt  2
              en  1
            by category:
              world          1
              technology     0
              business       0
              sports         0
              entertainment  0
              science        0
              health         0
              politics       0
              podcasts       1
              videos         1
            """)
    }
}
