import ArticleStore
import FoundationEssentials
import Glibc
import Postgres

/// `--status [--json]`: every source's health from the database, worst first. The table is for
/// people (relative times, long errors cut); `--json` is for scripts (one array, ISO 8601 times,
/// explicit nulls, whole errors).
struct StatusMode {
    let context: RunContext
    let json: Bool

    func run() async -> Int32 {
        guard let conninfo = context.requiredDatabaseURL() else { return ExitStatus.usage }
        do {
            let connection = try await PostgresConnection.connect(settings: context.connectionSettings(conninfo),
                                                                  logger: context.logger)
            let now = Date()
            let statuses = try await ArticleStore(connection: connection).sourceStatuses(at: now)
            await connection.close()
            print(json ? try Self.json(statuses) : Self.table(statuses, now: now), terminator: "")
            return ExitStatus.success
        } catch {
            context.fail("\(error)")
            return ExitStatus.unavailable
        }
    }

    static let errorColumnWidth = 60

    static func table(_ statuses: [SourceStatus], now: Date) -> String {
        let header = ["SOURCE", "ACTIVE", "LAST SUCCESS", "FAILS", "CIRCUIT", "NEXT DUE", "24H", "PUSH", "LAST ERROR"]
        let rows = statuses.map { status -> [String] in
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
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            zip(cells, widths).enumerated().map { index, pair in
                index == cells.count - 1 ? pair.0 : pair.0 + String(repeating: " ", count: max(0, pair.1 - pair.0.count))
            }.joined(separator: "  ") + "\n"
        }
        let failing = statuses.filter { $0.isActive && $0.consecutiveFailures > 0 }.count
        let open = statuses.filter { $0.circuitIsOpen(at: now) }.count
        return line(header) + rows.map(line).joined()
            + "\(statuses.count) sources, \(statuses.filter(\.isActive).count) active, \(failing) failing, "
            + "\(open) with an open circuit\n"
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

    static func json(_ statuses: [SourceStatus]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return String(decoding: try encoder.encode(statuses.map(StatusJSON.init)), as: UTF8.self) + "\n"
    }
}

/// The `--json` shape: snake_case keys, every key present (null when unknown).
private struct StatusJSON: Encodable {
    let status: SourceStatus

    enum Keys: String, CodingKey {
        case slug, name, active, lastSuccessAt = "last_success_at", lastError = "last_error",
             lastErrorAt = "last_error_at", consecutiveFailures = "consecutive_failures",
             circuitOpenUntil = "circuit_open_until", nextDueAt = "next_due_at",
             itemsLast24h = "items_last_24h", leasedBy = "leased_by", websub
    }

    enum PushKeys: String, CodingKey { case state, hub, leaseUntil = "lease_until" }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(status.slug, forKey: .slug)
        try container.encode(status.name, forKey: .name)
        try container.encode(status.isActive, forKey: .active)
        try container.encode(status.lastSuccessAt, forKey: .lastSuccessAt)
        try container.encode(status.lastError, forKey: .lastError)
        try container.encode(status.lastErrorAt, forKey: .lastErrorAt)
        try container.encode(status.consecutiveFailures, forKey: .consecutiveFailures)
        try container.encode(status.circuitOpenUntil, forKey: .circuitOpenUntil)
        try container.encode(status.nextDueAt, forKey: .nextDueAt)
        try container.encode(status.itemsLast24Hours, forKey: .itemsLast24h)
        try container.encode(status.leasedBy, forKey: .leasedBy)
        // {"state", "hub", "lease_until"} or null: the secret is never shown.
        if let state = status.websubState {
            var push = container.nestedContainer(keyedBy: PushKeys.self, forKey: .websub)
            try push.encode(state, forKey: .state)
            try push.encode(status.websubHub, forKey: .hub)
            try push.encode(status.websubLeaseUntil, forKey: .leaseUntil)
        } else {
            try container.encodeNil(forKey: .websub)
        }
    }
}
