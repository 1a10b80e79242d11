import ArticleStore
import Foundation
import Postgres
import PulseModel
import TestSupport
import Testing

/// The bulk insert path: one prepared INSERT over `unnest` of one array literal per column,
/// spread over several sessions, needing no privilege beyond INSERT.
@Suite(.tags(.integration), .needsDatabase)
struct ArticleStagingTests {
    /// Array literals give `"`, `\`, `{`, `}`, `,` and an unquoted NULL meanings, as COPY's text
    /// format gave backslash and `\N`; stored text must come back byte for byte as the row builder
    /// made it, and a missing value must stay NULL.
    @Test func awkwardTextSurvivesTheArrayLiterals() async throws {
        try await TestDatabase.with { database in
            let (store, sources) = try await Seed.store(database, sources: [Seed.source("s")])
            let candidates = [
                ArticleCandidate(title: "\\N", link: "https://e.example/1", summary: "C:\\temp\\new \\t end \"quoted\"",
                                 content: "para one\n\npara two \\ \\\\ end {a,b} \"{\"} NULL", author: "O\\Brien"),
                ArticleCandidate(title: "Tab\tand\r\nbreaks, {braces}", link: "https://e.example/2?q={a,\"b\"}",
                                 summary: nil, content: "line\nline", author: "NULL"),
                ArticleCandidate(title: "\"", link: "https://e.example/3", summary: "{}", content: "\\\"", author: "\u{00e9}\u{4e2d}"),
            ]
            let outcome = try await store.insertArticles(candidates, source: sources["s"]!)
            #expect(outcome.inserted == 3)
            let stored = try await store.connection.query("""
                SELECT url, title, summary, content, author, summary IS NULL AS no_summary, author IS NULL AS no_author
                FROM public.articles ORDER BY url
                """, label: "read back").rows
            #expect(stored.count == 3)
            let expected = outcome.stored.map(\.row).sorted { $0.url < $1.url }
            for (row, want) in zip(stored, expected) {
                #expect(row["url"] == want.url)
                #expect(row["title"] == want.title)
                #expect(row["summary"] == want.summary)
                #expect(row["content"] == want.content)
                #expect(row["author"] == want.author)
            }
            #expect(stored[0]["title"] == "\\N" && stored[0]["summary"] == "C:\\temp\\new \\t end \"quoted\"")
            #expect(stored[0]["content"] == "para one\n\npara two \\ \\\\ end {a,b} \"{\"} NULL")
            #expect(stored[1].bool("no_summary") == true && stored[1]["author"] == "NULL" && stored[1].bool("no_author") == false)
            #expect(stored[2]["title"] == "\"" && stored[2]["summary"] == "{}" && stored[2]["content"] == "\\\"")
            await store.connection.close()
        }
    }

    /// Several sources inserting at once over three sessions: every row exactly once, each session
    /// having prepared the insert for itself.
    @Test func insertLanesShareTheWork() async throws {
        try await TestDatabase.with { database in
            let slugs = ["a", "b", "c", "d", "e", "f"]
            let (seeded, sources) = try await Seed.store(database, sources: slugs.map { Seed.source($0) })
            let store = ArticleStore(connection: seeded.connection, extraInsertConnections: 2)
            #expect(store.insertLanes.count == 3)
            func batch(_ slug: String) -> [ArticleCandidate] {
                (1...40).map { ArticleCandidate(title: "\(slug) \($0)", link: "https://e.example/\(slug)/\($0)") }
            }
            for round in 0..<2 {
                let outcomes = try await withThrowingTaskGroup(of: InsertOutcome.self) { group in
                    for slug in slugs {
                        group.addTask { try await store.insertArticles(batch(slug), source: sources[slug]!) }
                    }
                    return try await group.reduce(into: [InsertOutcome]()) { $0.append($1) }
                }
                #expect(outcomes.map(\.inserted).reduce(0, +) == (round == 0 ? 240 : 0))
                #expect(outcomes.map(\.duplicates).reduce(0, +) == (round == 0 ? 0 : 240))
            }
            let counts = try await store.connection.query("""
                SELECT count(*) AS rows, count(DISTINCT url_hash) AS hashes FROM public.articles
                """, label: "counts").rows.first
            #expect(counts?["rows"] == "240" && counts?["hashes"] == "240")
            // Nothing named is left on any session: a pooler may hand it to another client.
            for lane in store.insertLanes {
                let prepared = try await lane.query("SELECT count(*) FROM pg_catalog.pg_prepared_statements",
                                                    label: "prepared").rows.first?[0]
                #expect(prepared == "0")
            }
            await store.closeInsertLanes()
            await store.connection.close()
        }
    }

    /// A database whose operators revoked TEMPORARY from PUBLIC: inserts need no temporary table.
    @Test func withoutTheTemporaryPrivilegeRowsAreStillStored() async throws {
        try await TestDatabase.with { database in
            let (store, sources) = try await Seed.store(database, sources: [Seed.source("s")])
            let admin = try await database.connect(serviceRole: false)
            // Identifiers cannot be parameters; the name is the harness's own (hex digits).
            try await admin.query("REVOKE TEMPORARY ON DATABASE \(database.name) FROM PUBLIC", label: "revoke temp")
            let role = await store.connection.currentRole
            #expect(role == "service_role")
            let candidates = (1...12).map { ArticleCandidate(title: "Item \($0)", link: "https://e.example/\($0)") }
            let outcome = try await store.insertArticles(candidates, source: sources["s"]!)
            #expect(outcome.inserted == 12)
            let again = try await store.insertArticles(candidates, source: sources["s"]!)
            #expect(again.inserted == 0 && again.duplicates == 12)
            await admin.close()
            await store.connection.close()
        }
    }
}
