import CLibPQ

/// COPY FROM STDIN and per-session set-up: the bulk path for article inserts (ArticleStore),
/// which stages each batch in a temporary table instead of parsing it out of one JSON value.
extension PostgresConnection {
    /// Runs `sql` (a COPY ... FROM STDIN of our own text, never built from input) and sends `data`,
    /// lines already in COPY's text format (see `CopyText`). Returns the rows copied.
    @discardableResult
    public func copyIn(_ sql: String, data: [UInt8], label: String) throws -> Int {
        guard let handle else {
            throw PostgresError(kind: .connectionLost, statement: label, message: "not connected")
        }
        let start = PQexec(handle, sql)
        let startStatus = start.map { PQresultStatus($0) } ?? PGRES_FATAL_ERROR
        guard startStatus == PGRES_COPY_IN else {
            defer { PQclear(start) }
            throw failure(start, handle, label: label)
        }
        PQclear(start)
        // Blocking connection: each call returns once libpq has queued the bytes (1) or failed (-1).
        let sent = data.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                chars.isEmpty ? 1 : PQputCopyData(handle, chars.baseAddress, Int32(chars.count))
            }
        }
        let ended = PQputCopyEnd(handle, sent == 1 ? nil : "client could not send the data")
        var copied = 0
        var problem: PostgresError?
        while let result = PQgetResult(handle) {
            if PQresultStatus(result) == PGRES_COMMAND_OK {
                copied = Int(String(cString: PQcmdTuples(result))) ?? 0
            } else if problem == nil {
                problem = failure(result, handle, label: label)
            }
            PQclear(result)
        }
        if let problem { throw problem }
        if sent != 1 || ended != 1 {
            throw PostgresError(kind: .connectionLost, statement: label, message: errorText(handle))
        }
        return copied
    }

    /// Runs `sql` once per session under `key` (a temporary table, say): again after a reconnect,
    /// never twice on the same session.
    public func once(_ key: String, _ sql: String, label: String) throws {
        guard !sessionSetUp.contains(key) else { return }
        try query(sql, label: label)
        sessionSetUp.insert(key)
    }
}

/// Values in COPY's text format: tab between columns, newline after each row, `\N` for NULL, and
/// backslash, newline, carriage return and tab escaped (PostgreSQL's "COPY ... Text Format").
/// Written by hand: no library here speaks COPY.
public struct CopyText: Sendable {
    public private(set) var bytes: [UInt8] = []
    private var columnInRow = 0

    public init(reservingCapacity capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    public mutating func append(_ value: String?) {
        separate()
        guard var value else { return nullValue() }
        value.withUTF8 { source in
            for byte in source {
                switch byte {
                case UInt8(ascii: "\\"): bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "\\"))
                case 0x0A: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "n"))
                case 0x0D: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "r"))
                case 0x09: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "t"))
                default: bytes.append(byte)
                }
            }
        }
    }

    public mutating func append(_ value: Int?) {
        separate()
        guard let value else { return nullValue() }
        bytes.append(contentsOf: String(value).utf8)
    }

    public mutating func append(_ value: Bool) {
        separate()
        bytes.append(value ? UInt8(ascii: "t") : UInt8(ascii: "f"))
    }

    public mutating func endRow() {
        bytes.append(0x0A)
        columnInRow = 0
    }

    private mutating func separate() {
        if columnInRow > 0 { bytes.append(0x09) }
        columnInRow += 1
    }

    private mutating func nullValue() {
        bytes.append(UInt8(ascii: "\\"))
        bytes.append(UInt8(ascii: "N"))
    }
}
