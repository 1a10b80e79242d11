import Foundation
import TestSupport
import Testing

/// The real binary, in every mode that reads DATABASE_URL, never prints any part of it beyond
/// scheme, host, port and database: not on refusal, not in libpq's connect errors, not on retry.
@Suite(.tags(.integration))
struct DatabaseURLSecretTests {
    static let modes: [[String]] = [["--once"], ["--prune"], ["--migrate"], ["--backfill"], ["--status"], []]

    /// Malformed strings libpq itself would answer by quoting the password or the whole URI.
    @Test(arguments: [
        "postgresql://pulse_user:S3cr%zzPW@127.0.0.1:1/db",
        "postgresql://pulse_user:S3cr%00PW@127.0.0.1:1/db",
        "postgresql://pulse_user:S3cr@PW@127.0.0.1:1/db",
        "postgresql://pulse_user:S3crPW@[::1/db",
    ])
    func malformedURLIsRefusedInEveryModeWithoutItsSecret(url: String) async throws {
        let config = try CommandLineTests.shippedConfig()
        for mode in Self.modes {
            let run = try await CommandLineTests.run(mode + ["--config", config], environment: ["DATABASE_URL": url])
            let output = run.stdout + run.stderr
            #expect(run.status == 64, "\(mode): \(output)")
            #expect(run.stderr.contains("DATABASE_URL "), "\(mode): \(output)")
            #expect(!output.contains("S3cr") && !output.contains("PW") && !output.contains("pulse_user"),
                    "\(mode) leaked: \(output)")
        }
    }

    /// Well-formed secrets that libpq decodes (`%40` is '@'): the connect error names the host only.
    @Test func unreachableDatabaseErrorNamesNoSecretInOneShotModes() async throws {
        let url = "postgresql://pulse_user:S3cr%40%21PW@127.0.0.1:1/pulse_db?application_name=S3crApp"
        let config = try CommandLineTests.shippedConfig()
        for mode in Self.modes.dropLast() {
            let run = try await CommandLineTests.run(mode + ["--config", config], environment: ["DATABASE_URL": url])
            let output = run.stdout + run.stderr
            #expect(run.status == 69, "\(mode): \(output)")
            #expect(output.contains("127.0.0.1"), "\(mode): \(output)")
            #expect(!output.contains("S3cr") && !output.contains("pulse_user") && !output.contains("PW"),
                    "\(mode) leaked: \(output)")
        }
    }

    @Test func serviceRetriesWithoutPrintingTheSecret() async throws {
        let url = "postgresql://pulse_user:S3cr%40%21PW@127.0.0.1:1/pulse_db"
        let output = try await offThePool {
            try Self.runService(environment: ["DATABASE_URL": url, "PULSE_LOG_LEVEL": "info"],
                                untilLinesContaining: "connection attempt failed", count: 2)
        }
        #expect(output.components(separatedBy: "connection attempt failed").count >= 3, "\(output)")
        #expect(!output.contains("S3cr") && !output.contains("pulse_user") && !output.contains("PW"), "leaked: \(output)")
    }

    /// A wrong password against the real server: the role is named only as `"***"`.
    @Test(.needsDatabase) func authenticationFailureNamesNeitherUserNorPassword() async throws {
        try await TestDatabase.with { database in
            guard let components = URLComponents(string: database.url), let user = components.user,
                  let host = components.host, let port = components.port else {
                Issue.record("test URL not understood")
                return
            }
            let url = "postgresql://\(user):Wr0ngS3cretPW@\(host):\(port)/\(database.name)"
            let run = try await CommandLineTests.run(["--status", "--config", try CommandLineTests.shippedConfig()],
                                                     environment: ["DATABASE_URL": url])
            let output = run.stdout + run.stderr
            #expect(run.status == 69, "\(output)")
            #expect(output.contains("authentication failed"), "\(output)")
            #expect(!output.contains("Wr0ngS3cretPW") && !output.contains("\"\(user)\""), "leaked: \(output)")
        }
    }

    /// Starts the service, reads its stderr until `marker` appeared `count` times, then stops it
    /// (after a minute regardless, so a service that never logs fails the test instead of hanging it).
    static func runService(environment extra: [String: String], untilLinesContaining marker: String,
                           count: Int) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try builtBinary())
        process.arguments = ["--config", try CommandLineTests.shippedConfig()]
        var environment = ProcessInfo.processInfo.environment
        for (key, value) in extra { environment[key] = value }
        process.environment = environment
        let err = Pipe()
        process.standardError = err
        process.standardOutput = err
        try process.run()
        DispatchQueue.global().asyncAfter(deadline: .now() + 60) { if process.isRunning { process.terminate() } }
        var text = ""
        while text.components(separatedBy: marker).count <= count {
            let chunk = err.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        process.terminate()
        text += String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return text
    }
}
