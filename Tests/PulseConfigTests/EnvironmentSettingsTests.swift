import Foundation
import PulseModel
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
        #expect(settings.fetch.userAgent == nil)
        #expect(settings.allowNetworks == nil)
        #expect(settings.description.contains("DATABASE_URL=<unset>"))
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
        #expect(settings.databaseURL == "postgresql://writer@db.internal:5432/pulse?sslmode=require")
        #expect(settings.fetch.userAgent == "custom/1.0")
        #expect(settings.statementTimeoutMilliseconds == 15_000)
        #expect(settings.lockTimeoutMilliseconds == 2_000)
        #expect(settings.allowNetworks == "127.0.0.0/8, ::1/128")
        #expect(settings.autoMigrate)
        #expect(settings.logLevel == .debug)
    }

    @Test(arguments: [
        ("PULSE_STATEMENT_TIMEOUT_MS", "fast"), ("PULSE_STATEMENT_TIMEOUT_MS", "0"), ("PULSE_LOCK_TIMEOUT_MS", "-1"),
        ("PULSE_LOCK_TIMEOUT_MS", "99999999999"), ("PULSE_AUTO_MIGRATE", "yes"), ("PULSE_AUTO_MIGRATE", "2"),
        ("PULSE_LOG_LEVEL", "verbose"), ("PULSE_USER_AGENT", "bad\r\nInjected: 1"),
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
        #expect(settings.fetch.resolve == ["a1.example:8080:127.0.0.1", "b.example:443:[::1]"])
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

    /// DATABASE_URL is kept as given (the modes that connect check it: PostgresTests'
    /// DatabaseURLTests); no way of printing the settings shows any of it.
    @Test(arguments: ["postgres://u:secret@h/db", "password=secret host=h dbname=db", "secret-garbage-value",
                      "postgresql://u:S3cr%zzPW@h/db"])
    func theURLIsNeverShown(raw: String) throws {
        let settings = try EnvironmentSettings(environment: ["DATABASE_URL": raw])
        #expect(settings.databaseURL == raw)
        var dumped = ""
        dump(settings, to: &dumped)
        for text in [settings.description, settings.debugDescription, String(describing: settings),
                     String(reflecting: settings), "\(settings)", dumped] {
            #expect(!text.contains("secret") && !text.contains("S3cr") && !text.contains("u:"), "leaked in: \(text)")
        }
        #expect(settings.description.contains("DATABASE_URL=<set>"))
    }
}

extension EnvironmentSettings {
    /// The settings of an environment given whole.
    init(environment: [String: String]) throws { try self.init(lookup: { environment[$0] }) }
}
