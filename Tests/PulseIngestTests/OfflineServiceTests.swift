import Foundation
import LoopbackHTTPServer
import TestSupport
import Testing

/// With no feed reachable (the network down), the service says so once per round over the due
/// sources, not once per claim, and names the likely cause.
@Suite(.tags(.integration), .needsDatabase)
struct OfflineServiceTests {
    @Test func aRoundWhereEverySourceFailsIsOneWarning() async throws {
        let port = try LoopbackHTTPServer.closedPort()
        var text = "version: 1\nsources:\n"
        // More sources than one claim takes (half the fetch concurrency, 8), so the round spans claims.
        for number in 1...20 {
            text += """
                  - slug: offline-\(number)
                    name: Offline \(number)
                    feed_url: http://127.0.0.1:\(port)/feeds/\(number).xml
                    category: world
                    language: en

                """
        }
        let (folder, configPath) = try ServiceProcessTests.writeConfig(text)
        defer { try? FileManager.default.removeItem(at: folder) }
        try await TestDatabase.with { database in
            let service = try ServiceProcess(config: configPath, databaseURL: database.url,
                                             environment: ["PULSE_AUTO_MIGRATE": "1"])
            let warned = try await ServiceProcessTests.waitUntil(timeout: .seconds(60)) {
                service.log.contains("sources failed")
            }
            #expect(warned, "\(service.logTail)")
            let status = try await service.stop()
            #expect(status == 0, "\(service.logTail)")
            let lines = service.log.split(separator: "\n")
            let warnings = lines.filter { $0.contains("sources failed") }
            #expect(warnings.count == 1 && warnings[0].contains("all 20 sources failed: is the network reachable?"),
                    "\(warnings)")
            #expect(!lines.contains { $0.contains("\"msg\":\"total:") }, "one line per claim again: \(service.logTail)")
            // Nothing after the final line: the stop abandons what is in flight, quietly.
            #expect(lines.last?.contains("stopped; leases released") == true, "\(service.logTail)")
        }
    }
}
