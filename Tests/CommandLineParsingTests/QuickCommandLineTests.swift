import ArgumentParser
import Foundation
@testable import pulse_ingest
import Testing

/// `QuickCommandLine` must read every command line it accepts exactly as ArgumentParser does, and
/// leave to ArgumentParser every command line it is not sure of.
@Suite struct QuickCommandLineTests {
    /// ArgumentParser's reading, with the positionals `main` keeps from it put back.
    static func viaArgumentParser(_ arguments: [String]) throws -> Invocation {
        let split = PositionalSplit.split(arguments)
        var invocation = try PulseIngest.parse(split.parse).invocation
        invocation.inputs += split.extra
        return invocation
    }

    static let accepted: [[String]] = [
        ["--dump-feed", "feed.xml"],
        ["--dump-feed", "a.xml", "b.xml", "https://example.com/feed", "--base-url", "https://example.com/"],
        ["--dump-feed", "--content-type", "text/xml; charset=iso-8859-1", "a.xml"],
        ["--dump-feed", "--files-from", "list.txt"],
        ["a.xml", "--dump-feed", "b.xml"],
        ["--dump-article", "page.html", "--url", "https://example.com/a", "--source-language", "pt"],
        ["--dump-article", "--text", "p1.html", "p2.html"],
        ["--check-config"],
        ["--check-config", "--config", "feeds.yaml", "--log-format", "json", "--log-level", "debug"],
        ["--once", "--source", "a", "--source", "b"],
        ["--backfill", "--kind", "image", "--limit", "20", "--source", "slug"],
        ["--prune", "--dry-run"],
        ["--status", "--json"],
        ["--migrate", "--config", "x.yaml"],
        ["--config", "feeds.yaml", "--metrics-address", "127.0.0.1:9464", "--allow-networks", "10.0.0.0/8"],
        [],
        ["--dump-feed", ""],
    ]

    @Test(arguments: accepted)
    func readsTheCommonShapesAsArgumentParserDoes(_ arguments: [String]) throws {
        let quick = try #require(QuickCommandLine.parse(arguments, helpWidth: { 80 }),
                                 "\(arguments) should be read without ArgumentParser")
        #expect(quick == .run(try Self.viaArgumentParser(arguments)))
    }

    /// Unknown, repeated, `=`-joined, terminated, unconvertible or invalid: ArgumentParser decides.
    static let declined: [[String]] = [
        ["--dump-feed"],                                   // no input: validation error
        ["--dump-feed", "--", "-odd-name.xml"],
        ["--dump-feed", "-"],
        ["--config=feeds.yaml"],
        ["--once", "--once"],
        ["--config", "a.yaml", "--config", "b.yaml"],
        ["--limit", "many", "--backfill"],
        ["--log-level", "loud"],
        ["--log-format", "xml"],
        ["--once", "--prune"],
        ["--json"],
        ["--verbose"],
        ["-x"],
        ["--config"],
        ["--config", "--once"],
        ["--version"],
        ["--help", "--once"],
        ["--experimental-dump-help"],
        ["--dump-article", "p.html", "--source-language", "portuguese"],
        // The source file modes are not start-up sensitive: ArgumentParser reads them.
        ["--import-sources", "sources.tsv"],
        ["--import-sources", "feeds.opml", "--category", "world", "--language", "en", "--dry-run"],
        ["--export-sources", "--format", "opml"],
    ]

    @Test(arguments: declined)
    func leavesTheRestToArgumentParser(_ arguments: [String]) {
        #expect(QuickCommandLine.parse(arguments, helpWidth: { 80 }) == nil)
    }

    @Test func theSourceFileModesAreReadByArgumentParser() throws {
        let importing = try Self.viaArgumentParser(["--import-sources", "feeds.opml", "--category", "world",
                                                    "--language", "en", "--dry-run", "--format", "opml"])
        #expect(importing.importSources == "feeds.opml" && importing.defaultCategory == "world")
        #expect(importing.defaultLanguage == "en" && importing.dryRun && importing.format == "opml")
        let exporting = try Self.viaArgumentParser(["--export-sources", "--format", "csv", "--config", "x.yaml"])
        #expect(exporting.exportSources && exporting.format == "csv" && exporting.configPath == "x.yaml")
    }

    @Test(arguments: [
        (["--import-sources", "a.tsv", "--export-sources"], "choose one mode"),
        (["--import-sources", "a.tsv", "--migrate"], "choose one mode"),
        (["--export-sources", "--format", "xml"], "--format must be tsv, csv or opml, not 'xml'"),
        (["--once", "--format", "csv"], "--format goes with --import-sources or --export-sources"),
        (["--export-sources", "--category", "world"], "--category and --language go with --import-sources"),
        (["--import-sources", "a.tsv", "--language", "english"], "--language: language 'english' is invalid"),
        (["--export-sources", "--dry-run"], "--dry-run goes with --prune or --import-sources"),
        (["--export-sources", "--metrics-address", "127.0.0.1:9464"], "--metrics-address goes with the service mode"),
    ])
    func theSourceFileModesRefuseWhatDoesNotGoWithThem(arguments: [String], message: String) {
        #expect(QuickCommandLine.parse(arguments, helpWidth: { 80 }) == nil)
        #expect {
            _ = try Self.viaArgumentParser(arguments)
        } throws: { error in
            PulseIngest.message(for: error).contains(message)
        }
    }

    @Test func aListLineSplitsIntoPathAndURLAtItsTab() {
        #expect(Invocation.splitListedURL("dir/page.html") == ("dir/page.html", nil))
        #expect(Invocation.splitListedURL("dir/page.html\thttps://example.com/a ") == ("dir/page.html", "https://example.com/a"))
        #expect(Invocation.splitListedURL("page.html \t ") == ("page.html", nil))
    }

    @Test func helpIsArgumentParsersOwnAtEightyColumns() {
        #expect(QuickCommandLine.parse(["--help"], helpWidth: { 80 }) == .help)
        #expect(QuickCommandLine.parse(["-h"], helpWidth: { 80 }) == .help)
        #expect(QuickCommandLine.parse(["--help"], helpWidth: { 120 }) == nil)
        let rendered = PulseIngest.helpMessage(columns: 80)
        #expect(QuickCommandLine.helpText == rendered,
                "paste this into QuickCommandLine.helpText:\n\(rendered)")
    }
}

/// `--dump-article --out-dir` names each output after its input without building a URL per page:
/// the same names Foundation's URL gave, on ordinary and awkward paths.
struct DumpArticleOutputNameTests {
    @Test(arguments: ["page.html", "dir/page.html", "/abs/dir/page.html", "a.b.c.html", "noext", ".hidden", "dir/.hidden",
                      "dir/", "dir//", "trailing.dot.", "x.", "../up.html", "./here.htm", "deep/er/name.tar.gz",
                      "spaces in name.html", "ünïcödé.html", "dir.with.dots/file", "a/b/", ".config.json"])
    func matchesFoundation(path: String) {
        let expected = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        #expect(DumpArticleMode.baseName(path) == expected, "\(path)")
    }
}
