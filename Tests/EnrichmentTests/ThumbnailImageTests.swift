import ArticleStore
import Enrichment
import Foundation
@testable import HTTPFetcher
import Ingestion
import LoopbackHTTPServer
import Postgres
import PulseModel
import TestSupport
import Testing

/// The app shows only `image_url`: it is the feed's thumbnail at insert, replaced by the page's
/// og:image when there is one (the Go worker's order), and `--backfill` gives older rows theirs.
@Suite(.tags(.integration), .needsDatabase)
struct ThumbnailImageTests {
    static func feed(base: String) -> String {
        let items = (1...3).map { number in
            """
            <item><title>Story \(number)</title><link>\(base)/articles/\(number)</link>
            <guid>\(base)/articles/\(number)</guid><pubDate>\(RFC822.now)</pubDate>
            <media:thumbnail url="\(base)/thumbs/\(number).jpg" width="640" height="360"/>
            <description>Short summary \(number).</description></item>
            """
        }.joined()
        return """
            <?xml version="1.0"?><rss version="2.0" xmlns:media="http://search.yahoo.com/mrss/"><channel><title>T</title>
            <link>\(base)</link>\(items)</channel></rss>
            """
    }

    /// Page 1 has an og:image, page 2 has none, page 3 fails.
    static func server(base: @escaping @Sendable () -> String) throws -> LoopbackHTTPServer {
        try LoopbackHTTPServer(routes: [
            "/feed.xml": { _, connection, _ in
                connection.respond(200, headers: [("Content-Type", "application/rss+xml")], body: Array(Self.feed(base: base()).utf8))
            },
            "/articles/": { request, connection, _ in
                let number = Int(request.path.split(separator: "/").last ?? "") ?? 0
                if number == 3 { connection.respond(500, "Server Error"); return }
                let image = number == 1 ? "<meta property=\"og:image\" content=\"/images/1.jpg\">" : ""
                let page = "<!doctype html><html><head><title>Story \(number)</title>\(image)</head><body><article>"
                    + String(repeating: "<p>\(BackfillTests.portuguese)</p>", count: 3) + "</article></body></html>"
                connection.respond(200, headers: [("Content-Type", "text/html; charset=utf-8")], body: Array(page.utf8))
            },
        ])
    }

    static func imagesAsAnon(_ database: TestDatabase) async throws -> [String: String?] {
        let anon = try await database.connect(serviceRole: false)
        try await anon.useRole("anon")
        let rows = try await anon.query("SELECT title, image_url FROM public.articles_with_source", label: "app read").rows
        await anon.close()
        return Dictionary(uniqueKeysWithValues: rows.map { ($0["title"] ?? "", $0["image_url"]) })
    }

    /// The farm above, a fresh database with one source reading it, and a fetcher that reaches it.
    static func withThumbsSource(
        _ body: (_ base: String, TestDatabase, ArticleStore, HTTPFetcher) async throws -> Void
    ) async throws {
        let baseBox = BaseBox()
        let server = try Self.server(base: { baseBox.value })
        defer { server.stop() }
        let base = "http://news.pulse-test.example:\(server.port)"
        baseBox.value = base
        try await TestDatabase.with { database in
            var definition = Seed.source("thumbs", language: "pt")
            definition.feedURL = "\(base)/feed.xml"
            let (store, _) = try await Seed.store(database, sources: [definition])
            let fetcher = EnrichedPassTests.newsFetcher(port: server.port)
            defer { fetcher.shutdown() }
            try await body(base, database, store, fetcher)
        }
    }

    @Test func pageImageReplacesTheThumbnailAndTheThumbnailStaysOtherwise() async throws {
        try await Self.withThumbsSource { base, database, store, fetcher in
            var pass = IngestPass(store: store, fetcher: fetcher, logger: TestDatabase.logger)
            pass.enricher = Enricher(fetcher: fetcher, logger: TestDatabase.logger)
            let outcome = try #require(try await pass.run(sources: try await store.dueSources()).outcomes.first)
            #expect(outcome.inserted == 3, "\(outcome.line)")

            let images = try await Self.imagesAsAnon(database)
            #expect(images["Story 1"] == "\(base)/images/1.jpg", "og:image replaces the thumbnail")
            #expect(images["Story 2"] == "\(base)/thumbs/2.jpg", "no og:image: the feed's thumbnail")
            #expect(images["Story 3"] == "\(base)/thumbs/3.jpg", "page failed: the feed's thumbnail")
            let attempts = try await store.connection.query(
                "SELECT sum(image_backfill_attempts) FROM public.articles", label: "attempts").rows.first?[0]
            #expect(attempts == "0", "a row showing its thumbnail is not missing an image")
            await store.connection.close()
        }
    }

    /// Rows stored before image_url took the thumbnail: the next image backfill fills them.
    @Test func backfillGivesOlderRowsTheirThumbnail() async throws {
        try await Self.withThumbsSource { base, database, store, fetcher in
            _ = try await IngestPass(store: store, fetcher: fetcher, logger: TestDatabase.logger)
                .run(sources: try await store.dueSources())
            // As an earlier release stored them; story 3's og:image attempts are already used up.
            try await store.connection.query("""
                UPDATE public.articles SET image_url = NULL,
                       image_backfill_attempts = CASE WHEN title = 'Story 3' THEN 3 ELSE 0 END
                """, label: "rows of an earlier release")

            let backfiller = Backfiller(store: store, enricher: Enricher(fetcher: fetcher, logger: TestDatabase.logger),
                                        windows: RetentionWindows(), logger: TestDatabase.logger)
            let summary = try await backfiller.run(kinds: [.image], limit: 100)
            #expect(summary.imagesFilled == 3)
            let images = try await Self.imagesAsAnon(database)
            #expect(images["Story 1"] == "\(base)/images/1.jpg")
            #expect(images["Story 2"] == "\(base)/thumbs/2.jpg")
            #expect(images["Story 3"] == "\(base)/thumbs/3.jpg")
            await store.connection.close()
        }
    }
}

/// The server's routes need the base URL, known only once it has a port.
final class BaseBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored = ""
    var value: String {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
