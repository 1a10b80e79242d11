import ArticleStore
import Enrichment
import Foundation
@testable import HTTPFetcher
import Ingestion
import LoopbackHTTPServer
import Postgres
import PulseModel
import Synchronization
import TestSupport
import Testing

/// Ingest-time enrichment: only new rows get a page fetch; a failing page keeps the row without
/// the field; a Spanish article in a Portuguese source is tagged Spanish.
@Suite(.tags(.integration), .needsDatabase)
struct EnrichedPassTests {
    static let spanish = """
        El ayuntamiento aprobó este martes un presupuesto que amplía el servicio de autobuses en cuatro \
        líneas, tras meses de debate sobre cómo gastar el superávit inesperado de los impuestos. Según \
        el plan, los autobuses de la línea norte pasarán cada diez minutos en hora punta.
        """

    static func feed(base: String) -> String {
        let items = (1...3).map { number in
            """
            <item><title>Notícia \(number)</title><link>\(base)/articles/\(number)</link>
            <guid>\(base)/articles/\(number)</guid><pubDate>\(RFC822.now)</pubDate>
            <description>Resumo da notícia \(number).</description></item>
            """
        }.joined()
        return "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>T</title><link>\(base)</link>\(items)</channel></rss>"
    }

    static func page(number: Int) -> String {
        let body = number == 2 ? spanish : BackfillTests.portuguese
        let paragraphs = (1...4).map { "<p>\(body) Parte \($0) da história \(number).</p>" }.joined()
        return """
            <!doctype html><html><head><title>Story \(number)</title>
            <meta property="og:image" content="/images/\(number).jpg"></head>
            <body><nav><a href="/">Início</a></nav><article>\(paragraphs)</article>
            <footer>Todos os direitos reservados</footer></body></html>
            """
    }


    /// One source whose feed is `base`/feed.xml, in a fresh database, and an ingest pass that
    /// enriches new rows.
    static func withEnrichingPass(slug: String, language: String, languageDetection: Bool = true, base: String, port: Int,
                                  _ body: (ArticleStore, IngestPass) async throws -> Void) async throws {
        try await TestDatabase.with { database in
            var definition = Seed.source(slug, language: language)
            definition.feedURL = "\(base)/feed.xml"
            definition.languageDetection = languageDetection
            let (store, _) = try await Seed.store(database, sources: [definition])
            let fetcher = newsFetcher(port: port)
            defer { fetcher.shutdown() }
            try await body(store, enrichingPass(store: store, fetcher: fetcher))
        }
    }

    /// The feed at /feed.xml (its links under `base()`) and its three pages (page 3 answers 500),
    /// each page request told to `pageHit`.
    static func newsServer(base: @escaping @Sendable () -> String,
                           pageHit: @escaping @Sendable () -> Void = {}) throws -> LoopbackHTTPServer {
        try LoopbackHTTPServer(routes: [
            "/feed.xml": { _, connection, _ in
                connection.respond(200, headers: [("Content-Type", "application/rss+xml")],
                                   body: Array(Self.feed(base: base()).utf8))
            },
            "/articles/": { request, connection, _ in
                pageHit()
                let number = Int(request.path.split(separator: "/").last ?? "") ?? 0
                if number == 3 { connection.respond(500, "Server Error"); return }
                connection.respond(200, headers: [("Content-Type", "text/html; charset=utf-8")],
                                   body: Array(Self.page(number: number).utf8))
            },
        ])
    }

    @Test func newRowsAreEnrichedOnceAndFailuresKeepTheRow() async throws {
        let pageHits = Mutex(0)
        let baseBox = Mutex("")
        let server = try Self.newsServer(base: { baseBox.withLock { $0 } }, pageHit: { pageHits.withLock { $0 += 1 } })
        defer { server.stop() }
        // Article links must look public to pass the feed parser; the fetcher pins the name to 127.0.0.1.
        let base = "http://news.pulse-test.example:\(server.port)"
        baseBox.withLock { $0 = base }
        try await Self.withEnrichingPass(slug: "pt-source", language: "pt", base: base, port: server.port) { store, pass in

            let first = try await pass.run(sources: try await store.dueSources())
            let outcome = try #require(first.outcomes.first)
            #expect(outcome.inserted == 3 && !outcome.failed, "\(outcome.line)")
            #expect(outcome.enriched == 2, "the 500 page enriches nothing")
            #expect(outcome.enrichDurations.count == 3, "one timing per page fetched")
            #expect(outcome.languageDisagreements == 1, "the Spanish story in a Portuguese source")
            #expect(pageHits.withLock { $0 } == 3)

            let rows = try await store.connection.query("""
                SELECT title, image_url, content, language, image_backfill_attempts FROM public.articles ORDER BY title
                """, label: "rows").rows
            #expect(rows.count == 3)
            for row in rows {
                let number = Int(row["title"]!.split(separator: " ").last!)!
                if number == 3 {
                    #expect(row["image_url"] == nil && row["content"] == nil)
                    #expect(row.int("image_backfill_attempts") == 1, "left for --backfill")
                    continue
                }
                #expect(row["image_url"] == "\(base)/images/\(number).jpg")
                #expect(row["content"]?.contains("Parte 4 da história \(number).") == true)
                #expect(row["content"]?.contains("direitos reservados") == false)
                #expect(row["language"] == (number == 2 ? "es" : "pt"), "story \(number)")
            }

            // The same feed again: no new rows, so no page is fetched.
            let second = try await pass.run(sources: [try #require(try await store.source(slug: "pt-source"))])
            #expect(second.outcomes.first?.inserted == 0 && second.outcomes.first?.enriched == 0)
            #expect(pageHits.withLock { $0 } == 3)
            await store.connection.close()
        }
    }

    /// `language_detection` off in the source's row (an imported source has no feeds.yaml entry to
    /// say so): the Spanish story keeps the source's Portuguese, and no disagreement is counted.
    @Test func languageDetectionOffInTheRowKeepsTheSourcesLanguage() async throws {
        let baseBox = Mutex("")
        let server = try Self.newsServer(base: { baseBox.withLock { $0 } })
        defer { server.stop() }
        let base = "http://news.pulse-test.example:\(server.port)"
        baseBox.withLock { $0 = base }
        try await Self.withEnrichingPass(slug: "pt-pinned", language: "pt", languageDetection: false, base: base,
                                         port: server.port) { store, pass in
            let sources = try await store.dueSources()
            #expect(sources.map(\.languageDetection) == [false])
            let outcome = try #require(try await pass.run(sources: sources).outcomes.first)
            #expect(outcome.inserted == 3 && outcome.enriched == 2, "\(outcome.line)")
            #expect(outcome.languageDisagreements == 0)
            let languages = try await store.connection.query(
                "SELECT DISTINCT language FROM public.articles", label: "languages").rows.map { $0["language"] }
            #expect(languages == ["pt"])
            await store.connection.close()
        }
    }

    /// A podcast episode with no link and a non-permalink guid is stored under its enclosure URL
    /// (issue 10), typed podcast, and its audio file is never fetched as if it were a page.
    @Test func episodeWithOnlyAnEnclosureIsStoredAndItsAudioNeverFetched() async throws {
        let audioHits = Mutex(0)
        let baseBox = Mutex("")
        let server = try LoopbackHTTPServer(routes: [
            "/feed.xml": { _, connection, _ in
                let base = baseBox.withLock { $0 }
                let feed = """
                    <?xml version="1.0"?><rss version="2.0"><channel><title>Daily</title><link>\(base)</link>
                    <item><title>Episode 845</title><guid isPermaLink="false">ep-845</guid><pubDate>\(RFC822.now)</pubDate>
                    <enclosure url="\(base)/audio/845.mp3?b=2&amp;a=1" type="audio/mpeg" length="1000"/></item>
                    </channel></rss>
                    """
                connection.respond(200, headers: [("Content-Type", "application/rss+xml")], body: Array(feed.utf8))
            },
            "/audio/": { _, connection, _ in
                audioHits.withLock { $0 += 1 }
                connection.respond(200, headers: [("Content-Type", "audio/mpeg")], body: [UInt8](repeating: 0xFF, count: 1000))
            },
        ])
        defer { server.stop() }
        let base = "http://news.pulse-test.example:\(server.port)"
        baseBox.withLock { $0 = base }
        try await Self.withEnrichingPass(slug: "podcast-source", language: "en", base: base, port: server.port) { store, pass in

            let outcome = try #require(try await pass.run(sources: try await store.dueSources()).outcomes.first)
            #expect(outcome.inserted == 1 && outcome.dropped == 0, "\(outcome.line)")
            #expect(audioHits.withLock { $0 } == 0)
            let rows = try await store.connection.query(
                "SELECT url, media_type, media_url FROM public.articles", label: "rows").rows
            #expect(rows.count == 1)
            #expect(rows.first?["url"] == "\(base)/audio/845.mp3?a=1&b=2")
            #expect(rows.first?["media_type"] == "podcast")
            #expect(rows.first?["media_url"] == "\(base)/audio/845.mp3?b=2&a=1")
            await store.connection.close()
        }
    }
}

extension EnrichedPassTests {
    /// A fetcher that reaches the loopback server under a public-looking name (article links
    /// must look public to pass the feed parser), with no per-host politeness delay.
    static func newsFetcher(port: Int) -> HTTPFetcher {
        var configuration = FetcherConfiguration()
        configuration.allowLoopbackForTesting = true
        configuration.resolveForTesting = ["news.pulse-test.example:\(port):127.0.0.1"]
        configuration.perHostRequestsPerSecond = 0
        return HTTPFetcher(configuration: configuration)
    }

    static func enrichingPass(store: ArticleStore, fetcher: HTTPFetcher) -> IngestPass {
        var pass = IngestPass(store: store, fetcher: fetcher, logger: TestDatabase.logger)
        pass.enricher = Enricher(fetcher: fetcher, logger: TestDatabase.logger)
        return pass
    }
}

/// The current time as an RFC 822 date (feed items must fall inside the retention window).
enum RFC822 {
    static var now: String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: Date())
    }
}
