import ArticleStore
@testable import Enrichment
import Foundation
@testable import HTTPFetcher
import Ingestion
import LoopbackHTTPServer
import Postgres
import PulseModel
import TestSupport
@testable import Threads
import Synchronization
import Testing

/// Issue 12, item 4: hostile feeds and a hostile article page among ordinary feeds, over real
/// loopback HTTP into real PostgreSQL. The hostile content is refused with its reason; every
/// ordinary source is stored and enriched in the same pass.
@Suite(.tags(.integration))
struct HostileIsolationTests {
    static let ordinaryCount = 6

    static func feed(base: String, slug: String, items: Int = 2) -> String {
        let entries = (1...items).map { number in
            """
            <item><title>\(slug) story \(number)</title><link>\(base)/articles/\(slug)-\(number)</link>
            <guid>\(base)/articles/\(slug)-\(number)</guid><pubDate>\(RFC822.now)</pubDate>
            <description>Summary \(number) of \(slug).</description></item>
            """
        }.joined()
        return "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>\(slug)</title><link>\(base)</link>\(entries)</channel></rss>"
    }

    static func attributes(_ count: Int) -> String { (0..<count).map { "a\($0)=\"1\"" }.joined(separator: " ") }

    /// Atom XHTML content with 200 000 attributes on one element (118 s before).
    static func xhtmlFloodFeed(base: String) -> String {
        """
        <?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>flood</title><entry><title>e</title>\
        <link href="\(base)/articles/flood-1"/><id>flood-1</id><updated>2026-01-01T00:00:00Z</updated>\
        <content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><p \(attributes(200_000))>x</p></div></content></entry></feed>
        """
    }

    /// `<p><b id=N class=...>x` repeated: every paragraph re-opens all earlier bold elements.
    static let reopenPage = "<html><body>" + (0..<2_040).map { "<p><b id=\($0) class=\"c\($0)\">x" }.joined() + "</body></html>"

    static func page(_ slug: String) -> String {
        let paragraph = "An ordinary article paragraph about \(slug), long enough for the extractor to keep it, with commas, clauses and plenty of words in it."
        return "<html><head><title>\(slug)</title><meta property=\"og:image\" content=\"/img/\(slug).jpg\"></head><body><article>"
            + String(repeating: "<p>\(paragraph)</p>", count: 4) + "</article></body></html>"
    }

    @Test(.needsDatabase) func hostileSourcesDoNotKeepOrdinaryOnesFromBeingStored() async throws {
        let baseBox = Mutex("")
        let server = try LoopbackHTTPServer(routes: [
            "/feeds/": { request, connection, _ in
                let slug = String(request.path.split(separator: "/").last ?? "")
                let base = baseBox.withLock { $0 }
                let body = slug == "xhtml-flood" ? Self.xhtmlFloodFeed(base: base) : Self.feed(base: base, slug: slug)
                connection.respond(200, headers: [("Content-Type", "application/rss+xml")], body: Array(body.utf8))
            },
            "/articles/": { request, connection, _ in
                let name = String(request.path.split(separator: "/").last ?? "")
                let body = name == "hostile-page-1" ? Self.reopenPage : Self.page(name)
                connection.respond(200, headers: [("Content-Type", "text/html; charset=utf-8")], body: Array(body.utf8))
            },
        ])
        defer { server.stop() }
        let base = "http://news.pulse-test.example:\(server.port)"
        baseBox.withLock { $0 = base }
        try await TestDatabase.with { database in
            let ordinary = (1...Self.ordinaryCount).map { "ordinary-\($0)" }
            let definitions = (["xhtml-flood", "hostile-page"] + ordinary).map { slug in
                var definition = Seed.source(slug)
                definition.feedURL = "\(base)/feeds/\(slug)"
                return definition
            }
            let (store, _) = try await Seed.store(database, sources: definitions)
            let fetcher = EnrichedPassTests.newsFetcher(port: server.port)
            defer { fetcher.shutdown() }
            let pass = EnrichedPassTests.enrichingPass(store: store, fetcher: fetcher)

            let summary = try await pass.run(sources: try await store.dueSources())
            let bySlug = Dictionary(uniqueKeysWithValues: summary.outcomes.map { ($0.slug, $0) })
            let flood = try #require(bySlug["xhtml-flood"])
            guard case .failed(let reason) = flood.result else {
                Issue.record("the flood feed was not refused: \(flood.line)")
                return
            }
            #expect(reason.contains("markup too complex") && reason.contains("512 attributes"), "\(reason)")
            #expect(flood.parseRefusals["feed"] == 1)
            #expect(bySlug["hostile-page"]?.parseRefusals["page"] == 1, "the re-opening page is refused and counted")
            for slug in ordinary + ["hostile-page"] {
                let outcome = try #require(bySlug[slug], "\(slug) has no outcome")
                #expect(!outcome.failed && outcome.inserted == 2, "\(outcome.line)")
            }
            for slug in ordinary { #expect(bySlug[slug]?.enriched == 2, "\(slug)") }

            let rows = try await store.connection.query("""
                SELECT url, content, content_backfill_attempts FROM public.articles WHERE url LIKE '%hostile-page-1'
                """, label: "hostile row").rows
            #expect(rows.count == 1)
            #expect(rows.first?["content"] == nil, "the refused page leaves the feed's fields")
            #expect(rows.first?.int("content_backfill_attempts") == 1)
            let stored = try await store.connection.query("SELECT count(*) AS n FROM public.articles", label: "count").rows
            #expect(stored.first?.int("n") == 2 * (Self.ordinaryCount + 1))
            await store.connection.close()
        }
    }

    /// Work that cannot be interrupted runs on its own thread: cancelling the waiting task (the
    /// drain deadline) returns at once, whatever the thread is still doing.
    @Test func cancelledOffPoolWorkIsAbandoned() async throws {
        let release = DispatchSemaphore(value: 0)
        let (started, running) = AsyncStream<Void>.makeStream()
        // The semaphore waits on OffPool's own thread, never on the cooperative pool.
        let task = Task { try await OffPool.run { () -> Int in running.yield(); release.wait(); return 1 } }
        for await _ in started { break }
        task.cancel()
        let result = await task.result
        #expect(throws: OffPool.Abandoned.self) { try result.get() }
        // The abandoned thread is still counted, so the process's end can wait for it.
        #expect(OffPool.runningThreads >= 1)
        release.signal()
        #expect(try await OffPool.run { 7 } == 7)
    }

    /// The process's end waits for OffPool's threads: not while one is alive, at once when the
    /// last one ends (the count is OffPool's own type, so other tests' threads do not matter).
    @Test func theEndOfTheProcessWaitsForTheLastThread() async throws {
        let threads = ThreadCount()
        threads.started()
        threads.started()
        #expect(!threads.waitUntilNone(timeout: .milliseconds(1)))
        threads.ended()
        #expect(threads.count == 1 && !threads.waitUntilNone(timeout: .zero))
        let waiter = Task { try await offThePool { threads.waitUntilNone(timeout: .seconds(60)) } }
        threads.ended()
        #expect(try await waiter.value)
        #expect(threads.count == 0)
    }

    /// Page analyses wait for one of a few slots (memory stays bounded); a waiter cancelled by the
    /// drain leaves the queue, and every slot comes back.
    @Test func pageSlotsBoundConcurrencyAndSurviveCancellation() async throws {
        let gate = Gate(slots: 1)
        let release = DispatchSemaphore(value: 0)
        let (started, running) = AsyncStream<Void>.makeStream()
        let holder = Task { try await OffPool.run(gate: gate) { () -> Int in running.yield(); release.wait(); return 1 } }
        for await _ in started { break }
        let waiter = Task { try await OffPool.run(gate: gate) { 2 } }
        waiter.cancel()
        let outcome = await waiter.result
        #expect(throws: OffPool.Abandoned.self) { try outcome.get() }
        release.signal()
        #expect(try await holder.value == 1)
        #expect(try await OffPool.run(gate: gate) { 3 } == 3)
    }
}
