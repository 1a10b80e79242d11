import Foundation
import LoopbackHTTPServer
import TestSupport
import Testing

/// The binary's modes and exit statuses as an operator or cron sees them.
@Suite(.tags(.integration))
struct CommandLineTests {
    typealias Run = ProcessRun

    static func run(_ arguments: [String], environment extra: [String: String] = [:]) async throws -> Run {
        try await offThePool { try runBlocking(arguments, environment: extra) }
    }

    private static func runBlocking(_ arguments: [String], environment extra: [String: String]) throws -> Run {
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "DATABASE_URL")
        for (key, value) in extra { environment[key] = value }
        return try ProcessRun(try builtBinary(), arguments, environment: environment)
    }

    @Test(.needsDatabase) func onceReportsEachSourceAndExitsThreeWhenSomeFail() async throws {
        let server = try FixtureFeeds.feedServer(now: Date())
        defer { server.stop() }
        try await TestDatabase.with { database in
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cli-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let config = folder.appendingPathComponent("feeds.yaml").path
            // Feed 7 of the fixture server answers 500.
            try ServiceProcessTests.config(server: server, feeds: 6...8, pathOffset: 0).write(toFile: config, atomically: true, encoding: .utf8)
            let env = ["DATABASE_URL": database.url]
            // The feeds are on loopback: their network is allowed for the file's source URLs too.
            #expect(try await Self.run(["--migrate", "--config", config, "--allow-networks", "127.0.0.1/32"],
                                       environment: env).status == 0)

            let first = try await Self.run(["--once", "--config", config, "--allow-networks", "127.0.0.1/32"], environment: env)
            #expect(first.status == 3, "\(first.stderr)")
            #expect(first.stdout.contains("FAIL  svc-7: HTTP status 500"))
            #expect(first.stdout.contains("OK    svc-6: 6 items, 5 new, 0 known, 1 older than retention"))
            #expect(first.stdout.contains("total: 3 sources, 1 failed"))

            let single = try await Self.run(["--once", "--config", config, "--allow-networks", "127.0.0.1/32",
                                       "--source", "svc-7"], environment: env)
            #expect(single.status == 4)
            let unknown = try await Self.run(["--once", "--config", config, "--allow-networks", "127.0.0.1/32",
                                              "--source", "nope"], environment: env)
            #expect(unknown.status == 64 && unknown.stderr.contains("unknown source slug 'nope'"))

            // Without the opt-in, loopback feeds are refused already in the file (the SSRF guard's
            // refusal at connect time is HTTPFetcherTests' and the service's).
            let guarded = try await Self.run(["--once", "--config", config, "--source", "svc-6"], environment: env)
            #expect(guarded.status == 64)
            #expect(guarded.stderr.contains("feed_url 'http://127.0.0.1:") && guarded.stderr.contains("is refused: its host is in a range the fetcher refuses (loopback)"),
                    "\(guarded.stderr)")
        }
    }

    /// `--migrate` twice on the shipped config after an operator turned a source off: it stays off,
    /// and the output names it.
    @Test(.needsDatabase) func migrateLeavesOperatorDeactivatedSourcesOff() async throws {
        try await TestDatabase.with { database in
            let env = ["DATABASE_URL": database.url]
            let config = try Self.shippedConfig()
            let first = try await Self.run(["--migrate", "--config", config], environment: env)
            #expect(first.status == 0, "\(first.stderr)")
            #expect(first.stdout.contains("sources: 136 new"), "\(first.stdout)")
            let db = try await database.connect(serviceRole: false)
            try await db.query("UPDATE public.sources SET is_active = false WHERE slug = 'bbc-world'", label: "turn off")
            for _ in 1...2 {
                let again = try await Self.run(["--migrate", "--config", config], environment: env)
                #expect(again.status == 0, "\(again.stderr)")
                #expect(again.stdout.contains("sources: 0 new, 0 updated, 136 unchanged"), "\(again.stdout)")
                #expect(again.stdout.contains("left inactive by the database (no 'active:' in the config): bbc-world"),
                        "\(again.stdout)")
                let active = try await db.query("SELECT is_active FROM public.sources WHERE slug = 'bbc-world'",
                                                label: "read back").rows.first?.bool("is_active")
                #expect(active == false)
            }
            await db.close()
        }
    }

    @Test func configurationAndInputErrorsHaveTheirStatuses() async throws {
        let noDatabase = try await Self.run(["--once", "--config", "feeds.yaml"])
        #expect(noDatabase.status == 64)
        let missing = try await Self.run(["--check-config", "--config", "/nonexistent/feeds.yaml"])
        #expect(missing.status == 64 && missing.stderr.contains("/nonexistent/feeds.yaml"))
        let unreachable = try await Self.run(["--prune", "--config", try Self.shippedConfig()],
                                       environment: ["DATABASE_URL": "postgresql://nobody@127.0.0.1:1/none"])
        #expect(unreachable.status == 69)
        #expect(try await Self.run(["--once", "--prune"]).status == 64)
    }

    /// The executable allocates with mimalloc (Package.swift says why). It replaces glibc's malloc
    /// only while it comes before libc in DT_NEEDED, and only if it loads: both are checked on the
    /// binary the tests built (this test binary does not link it).
    @Test func theBinaryAllocatesWithMimalloc() async throws {
        let readelf = Process()
        readelf.executableURL = URL(fileURLWithPath: "/usr/bin/readelf")
        readelf.arguments = ["--dynamic", "--wide", try builtBinary()]
        let pipe = Pipe()
        readelf.standardOutput = pipe
        try readelf.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        readelf.waitUntilExit()
        let needed = output.split(separator: "\n").filter { $0.contains("(NEEDED)") }
        let mimalloc = needed.firstIndex { $0.contains("[libmimalloc.so") }
        let libc = needed.firstIndex { $0.contains("[libc.so") }
        #expect(mimalloc != nil && libc != nil, "DT_NEEDED: \(needed)")
        if let mimalloc, let libc { #expect(mimalloc < libc, "mimalloc after libc: \(needed)") }
        // MIMALLOC_VERBOSE makes the allocator report its start on stderr.
        let help = try await Self.run(["--help"], environment: ["MIMALLOC_VERBOSE": "1"])
        #expect(help.status == 0)
        #expect(help.stderr.contains("mimalloc: "), "no mimalloc report: \(help.stderr.prefix(300))")
    }

    /// These two run on the main thread without tasks; a list that names a URL still fetches it.
    @Test func checkConfigAndAListNamingAURL() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("list-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let checked = try await Self.run(["--check-config", "--config", try Self.shippedConfig()])
        #expect(checked.status == 0 && checked.stdout.contains(": OK\nconfiguration version 1"), "\(checked.stderr)")
        let badConfig = folder.appendingPathComponent("bad.yaml").path
        try (try String(contentsOfFile: try Self.shippedConfig(), encoding: .utf8))
            .replacingOccurrences(of: "feed_url: https://", with: "feed_url: https://[:::::]/x", options: [], range: nil)
            .write(toFile: badConfig, atomically: true, encoding: .utf8)
        let refused = try await Self.run(["--check-config", "--config", badConfig])
        #expect(refused.status == 64 && refused.stderr.contains("bad.yaml:") && refused.stderr.contains("not a valid IP address"))

        let feed = FixtureFeeds.rss(number: 3, now: Date())
        let server = try LoopbackHTTPServer(routes: ["/feed.xml": { _, connection, _ in
            connection.respond(200, headers: [("Content-Type", "application/rss+xml")], body: Array(feed.utf8))
        }])
        defer { server.stop() }
        let file = folder.appendingPathComponent("feed.xml").path
        try feed.write(toFile: file, atomically: true, encoding: .utf8)
        let list = folder.appendingPathComponent("inputs.txt").path
        try [file, server.base + "/feed.xml"].joined(separator: "\n").write(toFile: list, atomically: true, encoding: .utf8)
        let listed = try await Self.run(["--dump-feed", "--allow-networks", "127.0.0.0/8", "--files-from", list])
        #expect(listed.status == 0, "\(listed.stderr)")
        let lines = listed.stdout.split(separator: "\n")
        #expect(lines.count == 2 && lines.first == lines.last)
        #expect(server.hits("/feed.xml") == 1)
    }

    @Test func dumpFeedPrintsJSONLinesAndExits65OnUnreadableInput() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dump-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let good = folder.appendingPathComponent("good.xml").path
        try FixtureFeeds.rss(number: 1, now: Date()).write(toFile: good, atomically: true, encoding: .utf8)
        let bad = folder.appendingPathComponent("bad.xml").path
        try "<html><body>not a feed</body></html>".write(toFile: bad, atomically: true, encoding: .utf8)

        let ok = try await Self.run(["--dump-feed", good, good])
        #expect(ok.status == 0)
        let lines = ok.stdout.split(separator: "\n")
        #expect(lines.count == 2)
        let object = try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any]
        #expect(object?["format"] as? String == "rss20")
        #expect((object?["items"] as? [Any])?.count == 6)

        let mixed = try await Self.run(["--dump-feed", good, bad])
        #expect(mixed.status == 65)
        let error = try JSONSerialization.jsonObject(with: Data(mixed.stdout.split(separator: "\n")[1].utf8)) as? [String: Any]
        #expect((error?["error"] as? String)?.contains("not a feed") == true)

        // An input with no end (a device, a pipe) is read up to the limit, then refused by name;
        // a folder is refused too.
        let endless = try await Self.run(["--dump-feed", "/dev/zero", folder.path])
        #expect(endless.status == 65)
        let endlessLines = endless.stdout.split(separator: "\n").map(String.init)
        #expect(endlessLines.count == 2)
        #expect(endlessLines.first?.contains("/dev/zero: larger than 128 MiB") == true)
        #expect(endlessLines.last?.contains("\(folder.path): cannot read the file") == true)
    }

    /// Several files are parsed on every core at once: the lines still come out in input order, a
    /// big document first (finishing last) included, and a missing or broken one in the middle
    /// only costs its own line and the exit status.
    @Test func dumpFeedKeepsInputOrderWhenFilesAreParsedInParallel() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dump-order-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        func feed(_ number: Int, items: Int) -> String {
            let entries = (0..<items).map { i in
                "<item><title>Story \(i)</title><link>https://feed\(number).example/s/\(i)</link>"
                    + "<description>&lt;p&gt;Paragraph \(i) of feed \(number).&lt;/p&gt;</description></item>"
            }
            return "<rss version=\"2.0\"><channel><title>Feed \(number)</title><link>https://feed\(number).example/</link>"
                + entries.joined() + "</channel></rss>"
        }
        var inputs: [String] = []
        var expected: [String?] = []
        for number in 1...12 {
            let path = folder.appendingPathComponent("feed-\(number).xml").path
            try feed(number, items: number == 1 ? 400 : number).write(toFile: path, atomically: true, encoding: .utf8)
            inputs.append(path)
            expected.append("Feed \(number)")
        }
        let broken = folder.appendingPathComponent("broken.xml").path
        try "<html><body>not a feed</body></html>".write(toFile: broken, atomically: true, encoding: .utf8)
        inputs.insert(folder.appendingPathComponent("missing.xml").path, at: 4)
        expected.insert(nil, at: 4)
        inputs.insert(broken, at: 8)
        expected.insert(nil, at: 8)

        let run = try await Self.run(["--dump-feed"] + inputs)
        #expect(run.status == 65)
        // The same inputs from a list take the same path and print the same lines.
        let list = folder.appendingPathComponent("inputs.txt").path
        try inputs.joined(separator: "\n").write(toFile: list, atomically: true, encoding: .utf8)
        let listed = try await Self.run(["--dump-feed", "--files-from", list])
        #expect(listed.status == 65 && listed.stdout == run.stdout)
        let objects = try run.stdout.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(objects.count == inputs.count)
        for (index, (object, title)) in zip(objects, expected).enumerated() {
            if let title {
                #expect((object["feed"] as? [String: Any])?["title"] as? String == title, "line \(index)")
                #expect((object["items"] as? [Any])?.count == (index == 0 ? 400 : Int(title.dropFirst(5))!))
            } else {
                let message = object["error"] as? String
                #expect(message?.contains(index == 4 ? "missing.xml: cannot read" : "broken.xml") == true, "line \(index)")
            }
        }
    }

    static func articlePage(_ number: Int) -> String {
        let paragraph = "Page \(number) marker. The council met on Thursday to review the plans, and members asked "
            + "about costs, timing and the effect on residents, who were broadly supportive of the idea."
        return """
            <html><head><title>Story \(number)</title><link rel="canonical" href="https://site\(number).example/story">
            <meta property="og:image" content="/img/lead-\(number).jpg"></head>
            <body><nav><a href="/">Home</a></nav><article>\(String(repeating: "<p>\(paragraph)</p>", count: 5))</article></body></html>
            """
    }

    /// `articlePage(n)` for each number, written into `folder` under `name(n)`; their paths.
    static func writeArticlePages(_ numbers: ClosedRange<Int>, into folder: URL,
                                  name: (Int) -> String = { "page\($0).html" }) throws -> [String] {
        try numbers.map { number in
            let path = folder.appendingPathComponent(name(number)).path
            try articlePage(number).write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }
    }

    @Test func dumpArticleKeepsInputOrderAndExits65OnUnreadableInput() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("article-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var inputs = try Self.writeArticlePages(1...6, into: folder, name: { "page-\($0).html" })
        inputs.insert(folder.appendingPathComponent("missing.html").path, at: 3)

        let run = try await Self.run(["--dump-article"] + inputs)
        #expect(run.status == 65)
        let objects = try run.stdout.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(objects.count == 7)
        let numbers = [1, 2, 3, nil, 4, 5, 6]
        for (object, number) in zip(objects, numbers) {
            if let number {
                #expect((object["text"] as? String)?.hasPrefix("Page \(number) marker.") == true)
                // A saved page with no --url takes its canonical URL as the base.
                #expect(object["og_image"] as? String == "https://site\(number).example/img/lead-\(number).jpg")
                #expect((object["html"] as? String)?.contains("<p>Page \(number) marker.") == true)
            } else {
                #expect((object["error"] as? String)?.contains("missing.html") == true)
            }
        }

        let out = folder.appendingPathComponent("out").path
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let texts = try await Self.run(["--dump-article", "--text", "--out-dir", out] + inputs.filter { !$0.contains("missing") })
        #expect(texts.status == 0)
        let jsonTexts = zip(objects, numbers).compactMap { object, number in number.map { _ in object["text"] as? String } }
        for number in 1...6 {
            let text = try String(contentsOfFile: out + "/page-\(number).txt", encoding: .utf8)
            // `--text` skips the language and metadata the JSON prints: the text must not change.
            #expect(text == jsonTexts[number - 1])
            #expect(text.hasPrefix("Page \(number) marker."))
            #expect(text.components(separatedBy: "\n\n").count == 5)
            #expect(!text.contains("Home"))
        }
    }

    /// A page whose only paragraph repeats its headline: Readability keeps no body, and the tool
    /// still prints what the page declares and its language (it printed `{}` before).
    @Test func dumpArticleOnAHeadlineOnlyPagePrintsTitleAndLanguage() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("headline-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let page = folder.appendingPathComponent("headline.html").path
        try """
            <!doctype html><html><head><title>Governo aprova reforma da previdência | Jornal</title>
            <meta property="og:title" content="Governo aprova reforma da previdência">
            <meta name="description" content="Texto segue agora para votação no Senado na próxima semana.">
            <meta property="og:image" content="https://img.example.com/reforma.jpg">
            <meta property="article:published_time" content="2026-11-20T10:00:00Z"></head>
            <body><h1>Governo aprova reforma da previdência</h1><p>Governo aprova reforma da previdência</p></body></html>
            """.write(toFile: page, atomically: true, encoding: .utf8)
        let run = try await Self.run(["--dump-article", page])
        #expect(run.status == 0, "\(run.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect(json["title"] as? String == "Governo aprova reforma da previdência")
        #expect(json["excerpt"] as? String == "Texto segue agora para votação no Senado na próxima semana.")
        #expect(json["og_image"] as? String == "https://img.example.com/reforma.jpg")
        #expect(json["published_at"] as? String == "2026-11-20T10:00:00Z")
        #expect(json["language"] as? String == "pt" && json["language_source"] as? String == "detected")
        #expect(json["text"] as? String == "")

        // Language-neutral text: only --source-language gives it one, the source's, as the service would.
        let neutral = folder.appendingPathComponent("neutral.html").path
        try "<html><head><title>Oscars 2026</title></head><body><h1>Oscars 2026</h1></body></html>"
            .write(toFile: neutral, atomically: true, encoding: .utf8)
        let bare = try await Self.run(["--dump-article", neutral])
        #expect(bare.status == 0 && bare.stdout.contains("\"title\":\"Oscars 2026\"") && !bare.stdout.contains("language"))
        let withSource = try await Self.run(["--dump-article", "--source-language", "es", neutral])
        #expect(withSource.stdout.contains("\"language\":\"es\"") && withSource.stdout.contains("\"language_source\":\"source\""),
                "\(withSource.stdout)")
        let bad = try await Self.run(["--dump-article", "--source-language", "Spanish", neutral])
        #expect(bad.status == 64 && bad.stderr.contains("two-letter"))
    }

    /// A list line "PATH<TAB>URL" gives that page its own base URL (over `--url` and the page's
    /// canonical link); a line without one keeps `--url`.
    @Test func dumpArticleListLinesCarryTheirOwnURL() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("listed-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let paths = try Self.writeArticlePages(1...2, into: folder)
        let list = folder.appendingPathComponent("list.txt").path
        try "\(paths[0])\thttps://listed.example/a/story\n\(paths[1])\n".write(toFile: list, atomically: true, encoding: .utf8)
        let run = try await Self.run(["--dump-article", "--url", "https://given.example/b", "--files-from", list])
        #expect(run.status == 0, "\(run.stderr)")
        let images = try run.stdout.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])["og_image"] as? String
        }
        #expect(images == ["https://listed.example/img/lead-1.jpg", "https://given.example/img/lead-2.jpg"])
    }

    /// Inputs from a list file and from arguments mixed with options come out in order, one each.
    @Test func dumpArticleTakesInputsFromAListAndBetweenOptions() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("inputs-\(UUID().uuidString.prefix(8))")
        let out = folder.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let paths = try Self.writeArticlePages(1...6, into: folder)
        let list = folder.appendingPathComponent("list.txt").path
        try (paths[3...].joined(separator: "\n") + "\n\n").write(toFile: list, atomically: true, encoding: .utf8)
        // Options between the paths, value-taking ones included, must not swallow or become inputs.
        let run = try await Self.run(["--dump-article", paths[0], "--text", paths[1], "--url", "https://news.example.com/a",
                                      "--out-dir", out.path, paths[2], "--files-from", list])
        #expect(run.status == 0, "\(run.stderr)")
        let written = try FileManager.default.contentsOfDirectory(atPath: out.path).sorted()
        #expect(written == (1...6).map { "page\($0).txt" })
        // A re-run replaces the files; a symlink left at an output path is replaced, never written through.
        let first = try String(contentsOfFile: out.appendingPathComponent("page1.txt").path, encoding: .utf8)
        let outside = folder.appendingPathComponent("outside.txt")
        try "keep me".write(to: outside, atomically: true, encoding: .utf8)
        try FileManager.default.removeItem(at: out.appendingPathComponent("page2.txt"))
        try FileManager.default.createSymbolicLink(at: out.appendingPathComponent("page2.txt"), withDestinationURL: outside)
        let rerun = try await Self.run(["--dump-article", "--text", "--out-dir", out.path, paths[0], paths[1]])
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(try String(contentsOfFile: out.appendingPathComponent("page1.txt").path, encoding: .utf8) == first)
        #expect(try String(contentsOf: outside, encoding: .utf8) == "keep me")
        let replaced = try FileManager.default.attributesOfItem(atPath: out.appendingPathComponent("page2.txt").path)
        #expect(replaced[.type] as? FileAttributeType == .typeRegular)
        let missing = try await Self.run(["--dump-article", "--files-from", folder.appendingPathComponent("nope").path])
        #expect(missing.status == 64 && missing.stderr.contains("cannot read"))
    }

    static func makeDue(_ database: TestDatabase) async throws {
        let db = try await database.connect(serviceRole: false)
        try await db.query("UPDATE public.sources SET last_fetched_at = NULL, next_due_at = NULL", label: "make due")
        await db.close()
    }

    static func shippedConfig() throws -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("feeds.yaml").path
    }
}
