import ArticleStore
import Foundation
import Postgres
import PulseModel
import TestSupport
import Testing

@Suite(.tags(.integration), .needsDatabase)
struct ArticleInsertTests {
    @Test func batchCountsAndStoredValues() async throws {
        try await TestDatabase.with { database in
            let (store, sources) = try await Seed.store(database, sources: [
                Seed.source("tech", category: "technology", maxContentLength: 50),
            ])
            let source = try #require(sources["tech"])
            _ = try await store.insertArticles([ArticleCandidate(title: "Already here", link: "https://news.example.com/old")],
                                               source: source)
            let longTitle = String(repeating: "word ", count: 150)
            let batch = [
                ArticleCandidate(title: "  First\u{202E} story\u{0007} ", link: "HTTPS://News.Example.com/a?b=2&a=1#top",
                                 summary: "Summary", content: String(repeating: "long body ", count: 20),
                                 author: "Ana\u{200B} Silva", imageURL: "javascript:alert(1)",
                                 thumbnailURL: "https://cdn.example.com/t.jpg"),
                ArticleCandidate(title: "Second", link: "https://news.example.com/b", mediaType: "podcast",
                                 mediaURL: "https://cdn.example.com/e.mp3", mediaDurationSeconds: 200_000,
                                 mediaMimeType: "audio/mpeg; charset=x", language: "pt-BR"),
                ArticleCandidate(title: longTitle, link: "https://news.example.com/c", mediaType: "unknown",
                                 mediaURL: "https://cdn.example.com/x"),
                ArticleCandidate(title: "Old one again", link: "https://news.example.com/old"),
                ArticleCandidate(title: "Same as first", link: "https://news.example.com/a?a=1&b=2"),
                ArticleCandidate(title: "Script", link: "javascript:alert(1)"),
                ArticleCandidate(title: "Loopback", link: "http://127.0.0.1/admin"),
                ArticleCandidate(title: "Obfuscated", link: "http://0x7f.1/admin"),
                ArticleCandidate(title: "Userinfo", link: "https://user:pw@news.example.com/d"),
                ArticleCandidate(title: "   ", link: "https://news.example.com/e"),
            ]
            let outcome = try await store.insertArticles(batch, source: source)
            #expect(outcome.received == 10)
            #expect(outcome.inserted == 3)
            #expect(outcome.duplicates == 2)
            #expect(outcome.rejected == [.unsafeURL: 4, .missingTitle: 1])

            let rows = try await store.connection.query("""
                SELECT title, url, url_hash, encode(sha256(convert_to(url, 'UTF8')), 'hex') AS sha, summary, content,
                       author, image_url, thumbnail_url, media_type, media_url, media_duration, media_mime_type,
                       language, source_slug, source_name, category_slug, category_name,
                       category_id = (SELECT id FROM public.categories WHERE slug = 'technology') AS category_ok
                FROM public.articles WHERE title <> 'Already here' ORDER BY url
                """, label: "stored rows").rows
            #expect(rows.count == 3)
            let first = rows[0]
            #expect(first["url"] == "https://news.example.com/a?a=1&b=2")
            #expect(first["title"] == "First story")
            #expect(first["author"] == "Ana Silva")
            // The app reads only image_url: it starts as the feed's thumbnail.
            #expect(first["image_url"] == "https://cdn.example.com/t.jpg")
            #expect(first["thumbnail_url"] == "https://cdn.example.com/t.jpg")
            #expect((first["content"]?.count ?? 0) <= 50)
            #expect(first["language"] == "en")
            #expect(first["source_slug"] == "tech" && first["source_name"] == "Source tech")
            #expect(first["category_slug"] == "technology" && first["category_name"] == "Technology")
            #expect(first.bool("category_ok") == true)
            for row in rows { #expect(row["url_hash"] == row["sha"]) }

            let podcast = rows[1]
            #expect(podcast["media_type"] == "podcast")
            #expect(podcast.int("media_duration") == 86_400)
            #expect(podcast["media_mime_type"] == "audio/mpeg")
            #expect(podcast["language"] == "pt")

            let capped = rows[2]
            #expect((capped["title"]?.count ?? 0) <= 500)
            #expect(capped["media_type"] == nil && capped["media_url"] == nil)
            await store.connection.close()
        }
    }

    @Test func publishedAtIsClamped() async throws {
        try await TestDatabase.with { database in
            let (store, sources) = try await Seed.store(database, sources: [Seed.source("s")])
            let now = Date(timeIntervalSince1970: 1_790_000_000)
            let year: TimeInterval = 365.25 * 86_400
            let candidates = [
                ArticleCandidate(title: "ancient", link: "https://e.example/1", publishedAt: now.addingTimeInterval(-30 * year)),
                ArticleCandidate(title: "future", link: "https://e.example/2", publishedAt: now.addingTimeInterval(86_400)),
                ArticleCandidate(title: "undated", link: "https://e.example/3"),
                ArticleCandidate(title: "updated only", link: "https://e.example/4", updatedAt: now.addingTimeInterval(-3_600)),
                ArticleCandidate(title: "normal", link: "https://e.example/5", publishedAt: now.addingTimeInterval(-60),
                                 updatedAt: now.addingTimeInterval(-30)),
            ]
            _ = try await store.insertArticles(candidates, source: sources["s"]!, now: now)
            let rows = try await store.connection.query(
                "SELECT title, extract(epoch FROM published_at)::float8 AS epoch FROM public.articles", label: "dates").rows
            var epochs: [String: Double] = [:]
            for row in rows { epochs[row["title"]!] = Double(row["epoch"]!) }
            let base = now.timeIntervalSince1970
            #expect(abs(epochs["ancient"]! - (base - 10 * year)) < 1)
            #expect(abs(epochs["future"]! - (base + 3_600)) < 1)
            #expect(abs(epochs["undated"]! - base) < 1)
            #expect(abs(epochs["updated only"]! - (base - 3_600)) < 1)
            #expect(abs(epochs["normal"]! - (base - 60)) < 1)
            await store.connection.close()
        }
    }

    @Test func killedConnectionMidBatchLosesNothingAndInsertsTheRestOnce() async throws {
        try await TestDatabase.with { database in
            let (baseStore, sources) = try await Seed.store(database, sources: [Seed.source("s")])
            let store = ArticleStore(connection: baseStore.connection, chunkSize: 10)
            let admin = try await database.connect(serviceRole: false)
            let candidates = (1...35).map { ArticleCandidate(title: "Item \($0)", link: "https://e.example/\($0)") }
            let victim = await store.connection.backendPID
            let killed = KillSwitch()
            let outcome = try await store.insertArticles(candidates, source: sources["s"]!) { storedSoFar in
                // After the first committed chunk, kill the writer's backend from outside.
                guard storedSoFar == 10, await killed.fire() else { return }
                _ = try? await admin.query("SELECT pg_terminate_backend($1)", [Int(victim)], label: "kill writer")
            }
            #expect(await killed.fired)
            #expect(outcome.inserted == 35)
            #expect(await store.connection.backendPID != victim)
            let count = try await admin.query("SELECT count(*), count(DISTINCT url_hash) FROM public.articles",
                                              label: "count").rows.first
            #expect(count?[0] == "35" && count?[1] == "35")

            let again = try await store.insertArticles(candidates, source: sources["s"]!)
            #expect(again.inserted == 0 && again.duplicates == 35)
            await admin.close()
            await store.connection.close()
        }
    }
}

actor KillSwitch {
    private(set) var fired = false
    func fire() -> Bool {
        if fired { return false }
        fired = true
        return true
    }
}
