import Postgres
import Testing

/// DATABASE_URL's check (`ConnectionString(databaseURL:)`, which the executable's
/// `RunContext.requiredDatabaseURL` applies): what it refuses, that its reasons never echo the
/// value, and what of it may be shown. No database needed.
struct DatabaseURLTests {
    @Test func aWellFormedURIIsAccepted() throws {
        let url = try ConnectionString(databaseURL: "postgresql://writer@db.internal:5432/pulse?sslmode=require")
        #expect(url.isURI)
        #expect(url.redacted == "postgresql://***@db.internal:5432/pulse?***")
    }

    @Test(arguments: ["mysql-thing", "secret-garbage-value", "host=h password='unterminated", "host=h\u{1}secret",
                      "host=h\u{202E}secret"])
    func malformedValuesAreRefusedWithoutTheirText(raw: String) {
        let error = #expect(throws: ConnectionStringError.self) { try ConnectionString(databaseURL: raw) }
        let text = "DATABASE_URL \(error.map(String.init(describing:)) ?? "")"
        #expect(text.hasSuffix("(value not shown)"), "\(text)")
        #expect(!text.contains("secret") && !text.contains("mysql") && !text.contains("unterminated"), "leaked in: \(text)")
    }

    @Test(arguments: [
        ("postgres://u:secret@h/db", "postgres://***@h/db"),
        ("postgresql://u:secret@h:5432/db?sslmode=require", "postgresql://***@h:5432/db?***"),
        ("postgres://u@h/db?password=secret&sslmode=verify-full", "postgres://***@h/db?***"),
        ("postgres://u:se%40cr%2Fet@h/db", "postgres://***@h/db"),
        ("postgresql://u:secret@[::1]:5432,h2:5433/db", "postgresql://***@[::1]:5432,h2:5433/db"),
        ("password=secret host=h dbname=db", "host=h dbname=db ***"),
        ("host=h user=u password = 'sec ret\\' secret' dbname=db", "host=h dbname=db ***"),
        ("host=h sslpassword=secret", "host=h ***"),
    ])
    func passwordsAreRedacted(raw: String, redacted: String) throws {
        let url = try ConnectionString(databaseURL: raw)
        #expect(url.redacted == redacted)
        #expect(!url.redacted.contains("secret") && !url.redacted.contains("cr%2Fet") && !url.redacted.contains("u:"))
    }

    /// Each is a string libpq would refuse with a message quoting the password or the whole URI.
    @Test(arguments: [
        ("postgresql://u:S3cr%zzPW@h/db", "invalid percent escape in the password"),
        ("postgresql://u:S3cr%00PW@h/db", "%00 in the password"),
        ("postgresql://u:S3cr@PW@h/db", "percent-encode '@'"),
        ("postgresql://u:S3crPW@[::1/db", "without its closing ']'"),
        ("postgresql://u:S3crPW@h:54x/db", "port that is not a number"),
        ("postgresql://u:S3crPW@[::1]x/db", "unexpected character after a host"),
        ("postgresql://u:S3crPW@h/db?sslmode", "exactly one key=value"),
        ("POSTGRESQL://u:S3crPW@h/db", "in lower case"),
    ])
    func malformedURIsAreRefusedWithoutTheirText(raw: String, reason: String) {
        let error = #expect(throws: ConnectionStringError.self) { try ConnectionString(databaseURL: raw) }
        let text = error.map(String.init(describing:)) ?? ""
        #expect(text.contains(reason), "\(text)")
        #expect(!text.contains("S3cr") && !text.contains("PW"), "leaked in: \(text)")
    }
}
