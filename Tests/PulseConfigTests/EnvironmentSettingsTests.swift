import Foundation
import Testing

@testable import PulseConfig

@Suite("environment settings")
struct EnvironmentSettingsTests {
    @Test func defaultsWhenNothingIsSet() throws {
        let settings = try EnvironmentSettings(environment: ["HOME": "/root"])
        #expect(settings.databaseURL == nil)
        #expect(settings.statementTimeoutMilliseconds == 30_000)
        #expect(settings.lockTimeoutMilliseconds == 5_000)
        #expect(settings.autoMigrate == false)
        #expect(settings.logLevel == .info)
        #expect(settings.userAgent == nil)
        #expect(settings.allowNetworks == nil)
        #expect(settings.effectiveUserAgent(FetchSettings()) == FetchSettings.defaultUserAgent)
        let error = #expect(throws: EnvironmentError.self) { try settings.requireDatabaseURL() }
        #expect(error?.description.hasPrefix("DATABASE_URL is required") == true)
    }

    @Test func readsEveryVariable() throws {
        let settings = try EnvironmentSettings(environment: [
            "DATABASE_URL": "postgresql://writer@db.internal:5432/pulse?sslmode=require",
            "PULSE_USER_AGENT": "custom/1.0",
            "PULSE_STATEMENT_TIMEOUT_MS": "15000",
            "PULSE_LOCK_TIMEOUT_MS": "2000",
            "PULSE_ALLOW_NETWORKS": "127.0.0.0/8, ::1/128",
            "PULSE_AUTO_MIGRATE": "1",
            "PULSE_LOG_LEVEL": "DEBUG",
        ])
        #expect(try settings.requireDatabaseURL() == "postgresql://writer@db.internal:5432/pulse?sslmode=require")
        #expect(settings.database?.isURI == true)
        #expect(settings.redactedDatabaseURL == "postgresql://***@db.internal:5432/pulse?***")
        #expect(settings.userAgent == "custom/1.0")
        #expect(settings.effectiveUserAgent(FetchSettings()) == "custom/1.0")
        #expect(settings.statementTimeoutMilliseconds == 15_000)
        #expect(settings.lockTimeoutMilliseconds == 2_000)
        #expect(settings.allowNetworks == "127.0.0.0/8, ::1/128")
        #expect(settings.autoMigrate)
        #expect(settings.logLevel == .debug)
    }

    @Test(arguments: [
        ("PULSE_STATEMENT_TIMEOUT_MS", "fast"), ("PULSE_STATEMENT_TIMEOUT_MS", "0"), ("PULSE_LOCK_TIMEOUT_MS", "-1"),
        ("PULSE_LOCK_TIMEOUT_MS", "99999999999"), ("PULSE_AUTO_MIGRATE", "yes"), ("PULSE_AUTO_MIGRATE", "2"),
        ("PULSE_LOG_LEVEL", "verbose"), ("PULSE_USER_AGENT", "bad\r\nInjected: 1"), ("DATABASE_URL", "mysql-thing"),
        ("PULSE_RESOLVE", "news.example:443"), ("PULSE_RESOLVE", "news.example:http:127.0.0.1"),
        ("PULSE_RESOLVE", "a.example:80:127.0.0.1,bad one:80:10.0.0.1"),
    ])
    func invalidValuesNameTheVariable(variable: String, value: String) {
        let error = #expect(throws: EnvironmentError.self) {
            try EnvironmentSettings(environment: [variable: value])
        }
        #expect(error?.problems.map(\.variable) == [variable])
        #expect(error?.description.hasPrefix(variable + " ") == true)
    }

    @Test func resolvePinsAreReadInOrder() throws {
        let settings = try EnvironmentSettings(environment: ["PULSE_RESOLVE": "a1.example:8080:127.0.0.1, b.example:443:[::1]"])
        #expect(settings.resolve == ["a1.example:8080:127.0.0.1", "b.example:443:[::1]"])
    }

    /// A folder holding a PEM bundle (`ca.pem`), a folder of hashed names (`hashed/`), a key
    /// (`key.pem`) and a folder without hashed names (`plain/`).
    static func caFiles() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ca-env-\(UUID().uuidString.prefix(8))")
        for sub in ["hashed", "plain"] {
            try FileManager.default.createDirectory(at: folder.appendingPathComponent(sub), withIntermediateDirectories: true)
        }
        let pem = "-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----\n"
        try pem.write(to: folder.appendingPathComponent("ca.pem"), atomically: true, encoding: .utf8)
        try pem.write(to: folder.appendingPathComponent("hashed/3387b84d.0"), atomically: true, encoding: .utf8)
        try pem.write(to: folder.appendingPathComponent("plain/company-ca.crt"), atomically: true, encoding: .utf8)
        try "-----BEGIN PRIVATE KEY-----\nMIG\n-----END PRIVATE KEY-----\n"
            .write(to: folder.appendingPathComponent("key.pem"), atomically: true, encoding: .utf8)
        return folder
    }

    @Test func caBundleAndFolderAreReadAndShown() throws {
        let folder = try Self.caFiles()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("ca.pem").path, hashed = folder.appendingPathComponent("hashed").path
        let settings = try EnvironmentSettings(environment: ["PULSE_CA_FILE": file, "PULSE_CA_PATH": hashed])
        #expect(settings.fetch.caFile == file && settings.fetch.caPath == hashed)
        #expect(settings.description.contains("PULSE_CA_FILE=\(file), PULSE_CA_PATH=\(hashed)"))
        let unset = try EnvironmentSettings(environment: ["PULSE_CA_FILE": "", "PULSE_CA_PATH": ""])
        #expect(unset.fetch.caFile == nil && unset.fetch.caPath == nil)
        #expect(try FetchEnvironment(lookup: { $0 == "PULSE_CA_FILE" ? "" : nil }) == FetchEnvironment())
    }

    @Test func unusableCASettingsNameTheVariableAndThePath() throws {
        let folder = try Self.caFiles()
        defer { try? FileManager.default.removeItem(at: folder) }
        func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
        let cases = [
            ("PULSE_CA_FILE", path("missing.pem"), "cannot be read: no such file"),
            ("PULSE_CA_FILE", path("hashed"), "cannot be read: it is a directory"),
            ("PULSE_CA_FILE", path("key.pem"), "holds no PEM certificate (no -----BEGIN CERTIFICATE----- line)"),
            ("PULSE_CA_PATH", path("missing"), "cannot be read: no such file"),
            ("PULSE_CA_PATH", path("ca.pem"), "is not a folder"),
            ("PULSE_CA_PATH", path("plain"), "holds no certificate under a hashed name (HASH.0): run `openssl rehash \(path("plain"))`"),
        ]
        for (variable, value, reason) in cases {
            let error = #expect(throws: EnvironmentError.self) { try EnvironmentSettings(environment: [variable: value]) }
            #expect(error?.description == "\(variable) '\(value)' \(reason)")
            // The dump modes read the same four variables on their own, with the same verdicts.
            #expect(throws: EnvironmentError.self) { try FetchEnvironment(lookup: { $0 == variable ? value : nil }) }
        }
        let both = #expect(throws: EnvironmentError.self) {
            try EnvironmentSettings(environment: ["PULSE_CA_FILE": path("missing.pem"), "PULSE_CA_PATH": path("plain")])
        }
        #expect(both?.problems.map(\.variable) == ["PULSE_CA_FILE", "PULSE_CA_PATH"])
    }

    @Test(arguments: [("3387b84d.0", true), ("0C09AB5F.12", true), ("3387b84d.r0", false), ("3387b84.0", false),
                      ("3387b84d.", false), ("ca.pem", false), ("3387b84g.0", false)])
    func hashedNames(name: String, hashed: Bool) {
        #expect(FetchEnvironment.isHashedName(name) == hashed)
    }

    @Test func allInvalidVariablesAreReportedTogether() {
        let error = #expect(throws: EnvironmentError.self) {
            try EnvironmentSettings(environment: ["PULSE_AUTO_MIGRATE": "true", "PULSE_LOG_LEVEL": "loud"])
        }
        #expect(Set(error?.problems.map(\.variable) ?? []) == ["PULSE_AUTO_MIGRATE", "PULSE_LOG_LEVEL"])
    }

    @Test func invalidDatabaseURLMessageDoesNotEchoTheValue() {
        let error = #expect(throws: EnvironmentError.self) {
            try EnvironmentSettings(environment: ["DATABASE_URL": "secret-garbage-value"])
        }
        #expect(error?.description.contains("secret") == false)
        #expect(error?.description.contains("DATABASE_URL") == true)
    }

    /// Every way of printing the settings, which must never reveal `secret`.
    func renderings(_ settings: EnvironmentSettings) -> [String] {
        var dumped = ""
        dump(settings, to: &dumped)
        var dumpedURL = ""
        dump(settings.database, to: &dumpedURL)
        return [
            settings.description, settings.debugDescription, String(describing: settings), String(reflecting: settings),
            "\(settings)", dumped, dumpedURL, settings.redactedDatabaseURL ?? "",
            String(describing: settings.database), "\(settings.database!)",
            String(reflecting: settings.database!),
        ]
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
    func passwordsAreRedactedEverywhere(raw: String, redacted: String) throws {
        let settings = try EnvironmentSettings(environment: ["DATABASE_URL": raw])
        #expect(settings.redactedDatabaseURL == redacted)
        #expect(settings.databaseURL == raw)
        #expect(settings.database?.connectionString == raw)
        for text in renderings(settings) {
            #expect(!text.contains("secret"), "leaked in: \(text)")
            #expect(!text.contains("cr/et") && !text.contains("cr%2Fet") && !text.contains("u:"), "leaked in: \(text)")
        }
        #expect(settings.description.contains("DATABASE_URL=\(redacted)"))
    }

    @Test func malformedConninfoIsRejected() {
        #expect(throws: EnvironmentError.self) {
            try EnvironmentSettings(environment: ["DATABASE_URL": "host=h password='unterminated"])
        }
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
        let error = #expect(throws: EnvironmentError.self) { try EnvironmentSettings(environment: ["DATABASE_URL": raw]) }
        let text = error?.description ?? ""
        #expect(text.hasPrefix("DATABASE_URL "))
        #expect(text.contains(reason), "\(text)")
        #expect(!text.contains("S3cr") && !text.contains("PW"), "leaked in: \(text)")
    }
}
