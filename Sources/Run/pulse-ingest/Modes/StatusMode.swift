import ArticleStore
import FoundationEssentials
import Glibc
import Postgres
import Synchronization

/// `--status [--json] [--limit N | --all]`: the sources' health from the database, worst first,
/// the 50 worst unless told otherwise, streamed as the rows are read (a cursor, a batch at a
/// time), so that a million sources never sit in memory at once. The table is for people
/// (relative times, long errors cut, the fleet's figures at the end); `--json` is for scripts
/// (one array, ISO 8601 times, explicit nulls, whole errors).
struct StatusMode {
    static let defaultLimit = 50

    let context: RunContext
    let json: Bool
    /// The N worst; nil for every source.
    let limit: Int?

    func run() async -> Int32 {
        guard let conninfo = context.requiredDatabaseURL() else { return ExitStatus.usage }
        var settings = context.connectionSettings(conninfo)
        // Every source is sorted on the server before the first row comes (5.6 s at 1,000,000
        // on a loaded 2-core machine, more without parallel workers, as in a cursor).
        if limit == nil, settings.statementTimeoutMilliseconds > 0 {
            settings.statementTimeoutMilliseconds = max(settings.statementTimeoutMilliseconds, 600_000)
        }
        return await context.withConnection(settings) { connection in
            let store = ArticleStore(connection: connection)
            let now = Date()
            // The fleet's figures as the daemons keep them (computed here when no daemon has for
            // an interval): the summary never counts the rows it prints.
            let gauges = json ? nil : try await store.fleetGauges(workerID: "--status", interval: Self.gaugesInterval, at: now)
            let output = StatusOutput(json: json, now: now)
            try await store.streamSourceStatuses(at: now, limit: limit) { batch in try output.write(batch) }
            try output.finish(summary: json ? nil : Self.summary(gauges, shown: output.rowsWritten, limit: limit))
            return ExitStatus.success
        }
    }

    static let gaugesInterval: Duration = .seconds(15)

    /// The lines under the table: which rows were shown, and the fleet's figures with their age.
    static func summary(_ reading: FleetGaugeReading?, shown: Int, limit: Int?) -> String {
        guard let reading else { return "fleet figures not computed yet (another process is computing them)\n" }
        let gauges = reading.gauges
        var text = ""
        if let limit, shown == limit, gauges.sources > shown {
            text += "the \(shown) worst of \(gauges.sources) shown (--limit N for more, --all for every source)\n"
        }
        let age = reading.age.components.seconds
        text += "\(gauges.sources) sources, \(gauges.active) active, \(gauges.failing) failing, "
            + "\(gauges.circuitOpen) with an open circuit, \(gauges.due) due (fleet figures \(age)s old"
            + (gauges.estimated ? "; counts over \(ArticleStore.exactCountCeiling) are estimates" : "") + ")\n"
        return text
    }

    static let errorColumnWidth = 60

    static let header = ["SOURCE", "ACTIVE", "LAST SUCCESS", "FAILS", "CIRCUIT", "NEXT DUE", "24H", "PUSH", "LAST ERROR"]

    static func cells(_ status: SourceStatus, now: Date) -> [String] {
        var error = status.lastError.map { text in
            text.count > errorColumnWidth ? text.prefix(errorColumnWidth - 1) + "…" : text
        } ?? "-"
        if let at = status.lastErrorAt, status.lastError != nil { error = "\(relative(at, now: now)): \(error)" }
        return [
            status.slug, status.isActive ? "yes" : "no", status.lastSuccessAt.map { relative($0, now: now) } ?? "never",
            String(status.consecutiveFailures),
            status.circuitIsOpen(at: now) ? "open until \(relative(status.circuitOpenUntil!, now: now))" : "closed",
            status.nextDueAt.map { $0 <= now ? "now" : relative($0, now: now) } ?? "-",
            String(status.itemsLast24Hours), push(status, now: now), error,
        ]
    }

    /// One table line, each cell padded to its column's width (the last one never).
    static func line(_ cells: [String], widths: [Int]) -> String {
        zip(cells, widths).enumerated().map { index, pair in
            index == cells.count - 1 ? pair.0 : pair.0 + String(repeating: " ", count: max(0, pair.1 - pair.0.count))
        }.joined(separator: "  ") + "\n"
    }

    /// The WebSub column: the subscription's state, and for a live one when its lease ends.
    static func push(_ status: SourceStatus, now: Date) -> String {
        guard let state = status.websubState else { return "-" }
        if state == "subscribed", let until = status.websubLeaseUntil { return "subscribed, lease ends \(relative(until, now: now))" }
        return state
    }

    /// "3h ago", "in 12m", "2d ago": enough precision to read a table at a glance.
    static func relative(_ date: Date, now: Date) -> String {
        let seconds = Int(date.timeIntervalSince(now).rounded())
        let magnitude = abs(seconds)
        if magnitude == 0 { return "now" }
        let amount = switch magnitude {
        case ..<60: "\(magnitude)s"
        case ..<3600: "\(magnitude / 60)m"
        case ..<86_400: "\(magnitude / 3600)h\(magnitude % 3600 / 60 == 0 ? "" : "\(magnitude % 3600 / 60)m")"
        default: "\(magnitude / 86_400)d\(magnitude % 86_400 / 3600 == 0 ? "" : "\(magnitude % 86_400 / 3600)h")"
        }
        return seconds < 0 ? amount + " ago" : "in " + amount
    }

    static func jsonEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }

    static func json(_ status: SourceStatus, encoder: JSONEncoder) throws -> String {
        String(decoding: try encoder.encode(StatusJSON(status: status)), as: UTF8.self)
    }
}

/// Writes the statuses to standard output as their batches arrive: the table's column widths are
/// the first batch's (a later, longer cell pushes its line out, not the whole table), the JSON
/// array one row per line.
final class StatusOutput: Sendable {
    private struct State {
        var widths: [Int]?
        var rows = 0
    }
    private let json: Bool
    private let now: Date
    private let state = Mutex(State())

    init(json: Bool, now: Date) {
        self.json = json
        self.now = now
    }

    var rowsWritten: Int { state.withLock { $0.rows } }

    func write(_ batch: [SourceStatus]) throws {
        guard !batch.isEmpty else { return }
        var text = ""
        try state.withLock { state in
            if json {
                let encoder = StatusMode.jsonEncoder()
                for status in batch {
                    text += (state.rows == 0 ? "[\n" : ",\n") + (try StatusMode.json(status, encoder: encoder))
                    state.rows += 1
                }
                return
            }
            let rows = batch.map { StatusMode.cells($0, now: now) }
            if state.widths == nil {
                let widths = StatusMode.header.indices.map { column in
                    ([StatusMode.header] + rows).map { $0[column].count }.max() ?? 0
                }
                state.widths = widths
                text += StatusMode.line(StatusMode.header, widths: widths)
            }
            for row in rows { text += StatusMode.line(row, widths: state.widths!) }
            state.rows += rows.count
        }
        try Self.standardOutput(text)
    }

    /// Ends the array or the table (a table with no rows still has its header), then `summary`.
    func finish(summary: String?) throws {
        let rows = rowsWritten
        var text: String
        if json {
            text = rows == 0 ? "[]\n" : "\n]\n"
        } else {
            text = rows == 0 ? StatusMode.line(StatusMode.header, widths: StatusMode.header.map(\.count)) : ""
        }
        text += summary ?? ""
        try Self.standardOutput(text)
    }

    struct WriteFailed: Error, CustomStringConvertible {
        let code: Int32
        var description: String { "cannot write to standard output: \(String(cString: strerror(code)))" }
    }

    private static func standardOutput(_ text: String) throws {
        var text = text
        if let code = text.withUTF8({ writeAll(1, UnsafeRawBufferPointer($0)) }) { throw WriteFailed(code: code) }
    }
}

/// The `--json` shape: snake_case keys, every key present (null when unknown).
private struct StatusJSON: Encodable {
    struct Push: Encodable {
        let state: String, hub: Nullable<String>, lease_until: Nullable<Date>
    }

    let slug, name: String, active: Bool, consecutive_failures, items_last_24h: Int
    let last_success_at, last_error_at, circuit_open_until, next_due_at: Nullable<Date>
    let last_error, leased_by: Nullable<String>
    /// The subscription's state, hub and lease end, or null: the secret is never shown.
    let websub: Nullable<Push>

    init(status: SourceStatus) {
        (slug, name, active) = (status.slug, status.name, status.isActive)
        (consecutive_failures, items_last_24h) = (status.consecutiveFailures, status.itemsLast24Hours)
        last_success_at = Nullable(status.lastSuccessAt)
        last_error_at = Nullable(status.lastErrorAt)
        circuit_open_until = Nullable(status.circuitOpenUntil)
        next_due_at = Nullable(status.nextDueAt)
        last_error = Nullable(status.lastError)
        leased_by = Nullable(status.leasedBy)
        websub = Nullable(status.websubState.map {
            Push(state: $0, hub: Nullable(status.websubHub), lease_until: Nullable(status.websubLeaseUntil))
        })
    }
}
