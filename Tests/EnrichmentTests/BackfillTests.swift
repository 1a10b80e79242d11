import ArticleStore
import Enrichment
import Foundation
import Ingestion
@testable import HTTPFetcher
import LoopbackHTTPServer
import Postgres
import PulseModel
import Synchronization
import TestSupport
import Testing

/// `--backfill` against a real PostgreSQL and a local HTTP server: fills, does nothing the second
/// time, and resumes after an interruption.
@Suite(.tags(.integration), .needsDatabase)
struct BackfillTests {
    static let portuguese = """
        O governo anunciou nesta segunda-feira um novo pacote de investimentos em infraestrutura para as \
        regiões do Norte e do Nordeste, com obras em estradas, portos e ferrovias ao longo dos próximos \
        quatro anos. Segundo o ministério, os recursos virão de parcerias com empresas privadas e de \
        financiamento de bancos públicos, e as primeiras licitações devem ser publicadas ainda este mês.
        """
    static let english = """
        The city council voted on Tuesday night to approve a budget that expands bus service on four \
        routes, ending months of debate over how to spend an unexpected surplus from property taxes. \
        Under the plan, buses on the northern loop will run every ten minutes during rush hour instead \
        of every twenty, and two late-night routes that were cut during the pandemic will return.
        """

    static func page(number: Int, port: Int) -> String {
        let body = number % 2 == 0 ? portuguese : english
        let paragraphs = (1...4).map { "<p>\(body) Paragraph \($0) of story \(number).</p>" }.joined()
        return """
            <!doctype html><html><head><title>Story \(number) | Example News</title>
            <meta property="og:image" content="/images/story-\(number).jpg">
            </head><body><nav><a href="/">Home</a><a href="/world">World</a></nav>
            <article><h1>Story \(number)</h1>\(paragraphs)</article>
            <footer>Copyright Example News</footer></body></html>
            """
    }

    @Test func fillsThenIdlesAndResumesAfterInterruption() async throws {
        let portBox = Mutex(0)
        let server = try LoopbackHTTPServer(routes: ["/articles/": { request, connection, _ in
            let number = Int(request.path.split(separator: "/").last ?? "") ?? 0
            if number == 5 { connection.respond(404, "Not Found"); return }
            connection.respond(200, headers: [("Content-Type", "text/html; charset=utf-8")],
                               body: Array(Self.page(number: number, port: portBox.withLock { $0 }).utf8))
        }])
        portBox.withLock { $0 = server.port }
        defer { server.stop() }
        try await TestDatabase.with { database in
            let (store, sources) = try await Seed.store(database, sources: [Seed.source("s")])
            // Ingested without enrichment: no image, no body, the source's language.
            let candidates = (1...6).map {
                ArticleCandidate(title: "Story \($0)", link: "http://news.pulse-test.example:\(server.port)/articles/\($0)",
                                 summary: "Short summary.")
            }
            #expect(try await store.insertArticles(candidates, source: sources["s"]!).inserted == 6)

            var configuration = FetcherConfiguration()
            configuration.allowLoopbackForTesting = true
            // Article links must look public to be stored (`localhost` is refused by the URL rule).
            configuration.resolveForTesting = ["news.pulse-test.example:\(server.port):127.0.0.1"]
            configuration.perHostRequestsPerSecond = 0
            let fetcher = HTTPFetcher(configuration: configuration)
            defer { fetcher.shutdown() }
            let enricher = Enricher(fetcher: fetcher, logger: TestDatabase.logger)
            let backfiller = Backfiller(store: store, enricher: enricher, windows: RetentionWindows(), batchSize: 2,
                                        logger: TestDatabase.logger)
            let all = Set(BackfillKind.allCases)

            // Interrupted after the first batch: what was done is kept.
            let batches = Mutex(0)
            let first = try await backfiller.run(kinds: all, limit: 100, shouldStop: { batches.withLock { $0 } >= 1 }) { summary in
                if summary.processed > 0 { batches.withLock { $0 += 1 } }
            }
            #expect(first.interrupted && first.processed == 2 && first.candidates == 6)

            let second = try await backfiller.run(kinds: all, limit: 100)
            #expect(second.candidates == 4 && second.processed == 4 && !second.interrupted)
            // Rows of equal age go in id order, so which batch met the 404 varies: count both runs.
            #expect(first.imagesFilled + second.imagesFilled == 5)
            #expect(first.contentFilled + second.contentFilled == 5)
            #expect(first.languagesFilled + second.languagesFilled >= 5)
            #expect(first.rowsWithFailures + second.rowsWithFailures == 1)

            // Nothing left that may be tried now: the failed row waits 24 hours.
            let third = try await backfiller.run(kinds: all, limit: 100)
            #expect(third.candidates == 0)

            let rows = try await store.connection.query("""
                SELECT title, image_url, content, language, language_detected, image_backfill_attempts,
                       content_backfill_attempts FROM public.articles ORDER BY title
                """, label: "rows").rows
            for row in rows {
                let number = Int(row["title"]!.split(separator: " ").last!)!
                if number == 5 {
                    #expect(row["image_url"] == nil && row["content"] == nil)
                    #expect(row.int("image_backfill_attempts") == 1 && row.int("content_backfill_attempts") == 1)
                    continue
                }
                #expect(row["image_url"] == "http://news.pulse-test.example:\(server.port)/images/story-\(number).jpg")
                #expect(row["content"]?.contains("Paragraph 4 of story \(number).") == true)
                #expect(row["content"]?.contains("Copyright") == false)
                #expect(row["language"] == (number % 2 == 0 ? "pt" : "en"), "story \(number)")
                #expect(row.bool("language_detected") == true)
            }
            await store.connection.close()
        }
    }
}
