import Foundation
import Testing
@testable import Observability

/// A PulseMetrics with one of everything recorded.
func populatedMetrics() -> PulseMetrics {
    let metrics = PulseMetrics()
    metrics.recordFetch(outcome: .ok, duration: .milliseconds(300), bytes: 1234)
    metrics.recordFetch(outcome: .notModified, duration: .milliseconds(40))
    metrics.recordFetch(outcome: .failed, duration: .seconds(12))
    metrics.recordParse(duration: .milliseconds(7))
    metrics.recordEnrich(duration: .milliseconds(900))
    metrics.recordItems(seen: 20, inserted: 5, droppedByReason: ["duplicate": 14, "too_old": 1])
    metrics.setFleetGauges(active: 40, due: 9, circuitOpen: 2, failing: 3, estimated: false, age: .seconds(4))
    metrics.setClaimed(4)
    metrics.recordLanguageDisagreements(3)
    metrics.recordDatabaseError()
    metrics.recordRedirectRefused(reason: "https_to_http")
    metrics.markPassSucceeded(at: Date(timeIntervalSince1970: 1_700_000_000))
    return metrics
}

@Suite struct MetricsExpositionTests {
    @Test func everyMetricHasItsTypeLine() {
        let text = populatedMetrics().exposition()
        let expectedTypes = [
            "pulse_fetches_total": "counter",
            "pulse_fetch_duration_seconds": "histogram",
            "pulse_parse_duration_seconds": "histogram",
            "pulse_enrich_duration_seconds": "histogram",
            "pulse_fetched_bytes_total": "counter",
            "pulse_items_seen_total": "counter",
            "pulse_items_inserted_total": "counter",
            "pulse_items_dropped_total": "counter",
            "pulse_sources_due": "gauge",
            "pulse_sources_claimed": "gauge",
            "pulse_sources_circuit_open": "gauge",
            "pulse_sources_active": "gauge",
            "pulse_sources_failing": "gauge",
            "pulse_fleet_gauges_age_seconds": "gauge",
            "pulse_fleet_gauges_estimated": "gauge",
            "pulse_database_errors_total": "counter",
            "pulse_fetch_redirects_refused_total": "counter",
            "pulse_language_disagreements_total": "counter",
            "pulse_last_successful_pass_timestamp_seconds": "gauge",
        ]
        let lines = text.split(separator: "\n").map(String.init)
        for (name, type) in expectedTypes {
            #expect(lines.filter { $0 == "# TYPE \(name) \(type)" }.count == 1, "TYPE line for \(name)")
            #expect(lines.contains { $0.hasPrefix("# HELP \(name) ") }, "HELP line for \(name)")
        }
    }

    @Test func recordedValuesAppear() {
        let lines = Set(populatedMetrics().exposition().split(separator: "\n").map(String.init))
        for expected in [
            #"pulse_fetches_total{outcome="ok"} 1"#,
            #"pulse_fetches_total{outcome="not_modified"} 1"#,
            #"pulse_fetches_total{outcome="failed"} 1"#,
            #"pulse_fetches_total{outcome="blocked"} 0"#,
            "pulse_fetch_duration_seconds_count 3",
            #"pulse_fetch_duration_seconds_bucket{le="0.5"} 2"#,
            #"pulse_fetch_duration_seconds_bucket{le="+Inf"} 3"#,
            "pulse_fetch_duration_seconds_sum 12.34",
            "pulse_parse_duration_seconds_count 1",
            #"pulse_parse_duration_seconds_bucket{le="0.005"} 0"#,
            #"pulse_parse_duration_seconds_bucket{le="0.01"} 1"#,
            "pulse_enrich_duration_seconds_count 1",
            "pulse_fetched_bytes_total 1234",
            "pulse_items_seen_total 20",
            "pulse_items_inserted_total 5",
            #"pulse_items_dropped_total{reason="duplicate"} 14"#,
            #"pulse_items_dropped_total{reason="too_old"} 1"#,
            #"pulse_items_dropped_total{reason="invalid"} 0"#,
            "pulse_sources_due 9.0",
            "pulse_sources_claimed 4.0",
            "pulse_sources_circuit_open 2.0",
            "pulse_sources_active 40.0",
            "pulse_sources_failing 3.0",
            "pulse_fleet_gauges_age_seconds 4.0",
            "pulse_fleet_gauges_estimated 0.0",
            "pulse_database_errors_total 1",
            #"pulse_fetch_redirects_refused_total{reason="https_to_http"} 1"#,
            "pulse_last_successful_pass_timestamp_seconds 1700000000.0",
        ] {
            #expect(lines.contains(expected), "missing: \(expected)")
        }
    }

    @Test func freshInstancesDoNotShareState() {
        let first = PulseMetrics()
        first.recordDatabaseError()
        let second = PulseMetrics()
        #expect(second.exposition().contains("pulse_database_errors_total 0\n"))
        #expect(second.exposition().contains(#"pulse_fetch_redirects_refused_total{reason="https_to_http"} 0"# + "\n"))
        #expect(first.exposition().contains("pulse_database_errors_total 1\n"))
    }

    @Test func dropReasonsAreSanitisedAndBounded() {
        let metrics = PulseMetrics()
        metrics.recordItems(seen: 0, inserted: 0, droppedByReason: ["Bad Reason!\n{x=\"y\"}": 2, "": 1])
        for index in 0..<50 {
            metrics.recordItems(seen: 0, inserted: 0, droppedByReason: ["reason_\(index)": 1])
        }
        let lines = metrics.exposition().split(separator: "\n").filter { $0.hasPrefix("pulse_items_dropped_total{") }
        #expect(lines.contains(#"pulse_items_dropped_total{reason="bad_reason___x__y__"} 2"#))
        #expect(lines.contains(#"pulse_items_dropped_total{reason="unknown"} 1"#))
        #expect(lines.count == PulseMetrics.maxDropReasons + 1)  // + "other"
        let other = lines.first { $0.hasPrefix(#"pulse_items_dropped_total{reason="other"}"#) }
        // 3 standard + 2 sanitised reasons fill 5 slots; 27 of the 50 get their own series.
        #expect(other == #"pulse_items_dropped_total{reason="other"} 23"#)
    }

    @Test func negativeOrZeroCountsAreIgnored() {
        let metrics = PulseMetrics()
        metrics.recordItems(seen: -3, inserted: 0, droppedByReason: ["duplicate": -1])
        let text = metrics.exposition()
        #expect(text.contains("pulse_items_seen_total 0\n"))
        #expect(text.contains(#"pulse_items_dropped_total{reason="duplicate"} 0"#))
    }
}

// Debian's `prometheus` package ships promtool; CI may not have it installed. The test runs when
// the binary exists, or when PULSE_REQUIRE_PROMTOOL=1 demands it (then a missing binary fails).
let promtoolPath: String? = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin")
    .split(separator: ":").map { "\($0)/promtool" }
    .first { FileManager.default.isExecutableFile(atPath: $0) }
let promtoolRequired = ProcessInfo.processInfo.environment["PULSE_REQUIRE_PROMTOOL"] == "1"

@Suite struct PromtoolTests {
    @Test(.enabled(if: promtoolPath != nil || promtoolRequired,
                   "promtool not on PATH (make test puts .ci/promtool's copy there); set PULSE_REQUIRE_PROMTOOL=1 to require it"))
    func expositionPassesPromtoolCheckMetrics() async throws {
        let path = try #require(promtoolPath, "PULSE_REQUIRE_PROMTOOL=1 but promtool is not installed")
        let exposition = populatedMetrics().exposition()
        let (status, output) = try await Self.onOwnThread { () throws -> (Int32, String) in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: path)
            process.arguments = ["check", "metrics"]
            let stdin = Pipe()
            let stdout = Pipe()
            process.standardInput = stdin
            process.standardOutput = stdout
            process.standardError = stdout
            try process.run()
            stdin.fileHandleForWriting.write(Data(exposition.utf8))
            try stdin.fileHandleForWriting.close()
            let output = String(decoding: stdout.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return (process.terminationStatus, output)
        }
        #expect(status == 0, "promtool: \(output)")
        #expect(output.isEmpty, "promtool lint findings: \(output)")
    }

    @Test(.enabled(if: promtoolPath != nil, "promtool not installed"))
    func promtoolRejectsBrokenExposition() async throws {
        // Guards the test above: a checker that accepts anything would prove nothing.
        let status = try await Self.onOwnThread { () throws -> Int32 in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: promtoolPath!)
            process.arguments = ["check", "metrics"]
            let stdin = Pipe()
            process.standardInput = stdin
            process.standardOutput = Pipe()
            process.standardError = Pipe()
            try process.run()
            stdin.fileHandleForWriting.write(Data("# TYPE x counter\nx{ 1\n".utf8))
            try stdin.fileHandleForWriting.close()
            process.waitUntilExit()
            return process.terminationStatus
        }
        #expect(status != 0)
    }

    /// promtool's run blocks (pipes, waitUntilExit): on a thread of its own, not the 2-thread
    /// cooperative pool, where it starved timing-sensitive tests running in parallel.
    static func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }
}

@Suite struct ParseRefusalMetricTests {
    @Test func refusalsAreCountedByKind() {
        let metrics = PulseMetrics()
        metrics.recordParseRefusals(kind: "page", count: 2)
        metrics.recordParseRefusals(kind: "page", count: 1)
        metrics.recordParseRefusals(kind: "feed", count: 0)
        let text = metrics.exposition()
        #expect(text.contains("pulse_parse_refusals_total{kind=\"page\"} 3"))
        #expect(!text.contains("kind=\"feed\""))
    }
}
