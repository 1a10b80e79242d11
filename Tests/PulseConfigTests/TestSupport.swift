import Foundation
import Testing

@testable import PulseConfig

/// A one-source file with known line numbers: slug 3, name 4, feed_url 5, category 6,
/// language 7, then `extra` lines from 8 on (indented as source keys).
func oneSource(replacing key: String? = nil, with value: String = "", extra: [String] = []) -> String {
    var fields: [(String, String)] = [
        ("slug", "alpha"), ("name", "Alpha"), ("feed_url", "https://example.com/a.xml"),
        ("category", "world"), ("language", "en"),
    ]
    if let key, let index = fields.firstIndex(where: { $0.0 == key }) { fields[index].1 = value }
    var lines = ["version: 1", "sources:"]
    for (offset, field) in fields.enumerated() {
        lines.append((offset == 0 ? "  - " : "    ") + "\(field.0): \(field.1)")
    }
    lines += extra.map { "    " + $0 }
    return lines.joined(separator: "\n") + "\n"
}

/// The issues of a file that must fail to load.
func issues(_ yaml: String, file: String = "bad.yaml", sourceLocation: SourceLocation = #_sourceLocation)
    -> [ConfigIssue]
{
    do {
        let config = try ConfigLoader.parse(yaml: yaml, file: file)
        Issue.record("expected a ConfigError, got a configuration with \(config.sources.count) sources",
                     sourceLocation: sourceLocation)
        return []
    } catch let error as ConfigError {
        #expect(error.file == file, sourceLocation: sourceLocation)
        #expect(!error.issues.isEmpty, sourceLocation: sourceLocation)
        return error.issues
    } catch {
        Issue.record("unexpected error type: \(error)", sourceLocation: sourceLocation)
        return []
    }
}

/// Asserts one issue mentions `fragment`, sits on `line`, names `source`, and that its rendered
/// message carries file, line and source.
@discardableResult
func expectIssue(
    _ found: [ConfigIssue], containing fragment: String, line: Int?, source: String?, file: String = "bad.yaml",
    sourceLocation: SourceLocation = #_sourceLocation
) -> ConfigIssue? {
    guard let issue = found.first(where: { $0.message.contains(fragment) }) else {
        Issue.record("no issue containing \"\(fragment)\" in:\n\(found.map(\.description).joined(separator: "\n"))",
                     sourceLocation: sourceLocation)
        return nil
    }
    #expect(issue.line == line, "line of: \(issue)", sourceLocation: sourceLocation)
    #expect(issue.source == source, "source of: \(issue)", sourceLocation: sourceLocation)
    var prefix = file
    if let line { prefix += ":\(line)" }
    prefix += ": "
    if let source { prefix += "source '\(source)': " }
    #expect(issue.description.hasPrefix(prefix), "rendered: \(issue.description)", sourceLocation: sourceLocation)
    return issue
}

/// The directory holding both feeds.yaml and Package.swift, searched upward from this file, so
/// the tests work in the main repo and in a dev package (which keeps a copy of feeds.yaml).
func packageRootWithFeeds(from filePath: String = #filePath) -> URL? {
    var directory = URL(fileURLWithPath: filePath).deletingLastPathComponent()
    let fileManager = FileManager.default
    while directory.path != "/" {
        if fileManager.fileExists(atPath: directory.appendingPathComponent("feeds.yaml").path),
            fileManager.fileExists(atPath: directory.appendingPathComponent("Package.swift").path)
        {
            return directory
        }
        directory.deleteLastPathComponent()
    }
    return nil
}

/// shared/data/pulse-sources.tsv, which sits beside the main repo (and beside /work/dev).
func sourcesTSV(from filePath: String = #filePath) -> URL? {
    var directory = URL(fileURLWithPath: filePath).deletingLastPathComponent()
    while directory.path != "/" {
        let candidate = directory.appendingPathComponent("shared/data/pulse-sources.tsv")
        if FileManager.default.fileExists(atPath: candidate.path) { return candidate }
        directory.deleteLastPathComponent()
    }
    return nil
}

/// A small seeded generator, so a failure names a reproducible document.
struct SplitMix {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next(_ bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((value ^ (value >> 31)) % UInt64(bound))
    }
}
