import ArticleStore
import Foundation
import Postgres
import PulseModel
import Testing

/// No database needed.
struct PostgresUnitTests {
    @Test func reconnectBackoffDoublesAndCaps() {
        let policy = ReconnectPolicy(initialDelay: .milliseconds(250), maximumDelay: .seconds(5), maximumAttempts: nil)
        #expect((1...8).map { policy.delay(beforeAttempt: $0) } == [
            .zero, .milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(5), .seconds(5), .seconds(5),
        ])
    }

    @Test func timestampsRoundTrip() throws {
        let date = Date(timeIntervalSince1970: 1_790_000_000.123456)
        let text = PostgresTimestamp.format(date)
        #expect(text == "2026-09-21 14:13:20.123456+00")
        let parsed = try #require(PostgresTimestamp.parse(text))
        #expect(abs(parsed.timeIntervalSince(date)) < 0.000_01)
        #expect(PostgresTimestamp.parse("2026-09-21 16:13:20+02") == Date(timeIntervalSince1970: 1_790_000_000))
        #expect(PostgresTimestamp.parse("2026-09-21 09:43:20-04:30") == Date(timeIntervalSince1970: 1_790_000_000))
        #expect(PostgresTimestamp.parse("yesterday") == nil)
    }

    @Test func arrayLiteralsEscapeEverything() {
        #expect(PostgresArray.text(["a", "b\"c", "d\\e", "{x,y}"]) == #"{"a","b\"c","d\\e","{x,y}"}"#)
        #expect(PostgresArray.text([nil, "NULL"]) == #"{NULL,"NULL"}"#)
        #expect(PostgresArray.text([String]()) == "{}")
    }

    @Test func storedTextStripsControlsAndBidi() {
        #expect(StoredText.singleLine("a\u{202E}b\u{2066}c\u{0000}d\u{FEFF}\n e", limit: 100) == "abcd e")
        #expect(StoredText.multiLine("p1\n\n\n\np2\r\n  p3", limit: 100) == "p1\n\np2\np3")
        #expect(StoredText.singleLine("   ", limit: 10) == nil)
        let capped = StoredText.singleLine(String(repeating: "abcd ", count: 10), limit: 12)
        #expect(capped == "abcd abcd")
    }

    @Test func rowBuilderRules() throws {
        let builder = ArticleRowBuilder(now: Date(), sourceLanguage: "es", sourceMaxContentLength: nil)
        let row = try builder.build(ArticleCandidate(
            title: "T", link: " https://Example.com/x ", mediaType: "VIDEO",
            mediaURL: "https://v.example.com/1", mediaDurationSeconds: -5, mediaMimeType: "video/mp4 ",
            language: "Português")).get()
        #expect(row.url == "https://example.com/x")
        #expect(row.mediaType == "video" && row.mediaDuration == nil && row.mediaMimeType == "video/mp4")
        #expect(row.language == "es")
        #expect(ArticleRowBuilder.storedURL("https://10.0.0.1/x") == nil)
        #expect(ArticleRowBuilder.storedURL("https://[::1]/x") == nil)
        #expect(ArticleRowBuilder.storedURL("https://93.184.216.34/x") == "https://93.184.216.34/x")
        #expect(ArticleRowBuilder.storedURL("ftp://example.com/x") == nil)
        #expect(ArticleRowBuilder.storedURL("https://example.com/" + String(repeating: "a", count: 2048)) == nil)
    }
}

/// Redaction removes the secret values, not words of libpq's messages that equal them.
@Suite struct ScrubTests {
    @Test func settingsAreNotSecretsAndWordLikeSecretsAreScrubbedWhereQuoted() throws {
        let url = try ConnectionString(parsing: "postgresql://alice:server@db.example.com:5432/pulse?sslmode=require&connect_timeout=10")
        #expect(url.scrub("connection to server at \"db.example.com\" (10.0.0.1), port 5432 failed: SSL was required")
                == "connection to server at \"db.example.com\" (10.0.0.1), port 5432 failed: SSL was required")
        #expect(url.scrub("password authentication failed for user \"alice\"") == "password authentication failed for user \"***\"")
        #expect(url.scrub("the password is \"server\"") == "the password is \"***\"")

        let strong = try ConnectionString(parsing: "postgresql://alice:s3cr3t-Pa55@db.example.com/pulse?sslpassword=k3y-pass")
        #expect(strong.scrub("echo s3cr3t-Pa55 and k3y-pass") == "echo *** and ***")
        let keywords = try ConnectionString(parsing: "host=db.example.com user=bob password=hunter22 sslmode=verify-full")
        #expect(keywords.scrub("bob hunter22 verify-full \"bob\"") == "bob *** verify-full \"***\"")
    }
}
