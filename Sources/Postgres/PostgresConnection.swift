import CLibPQ
import PulseModel
import Logging

/// One PostgreSQL session. Every libpq call runs on the connection's own thread (see
/// `DedicatedThreadExecutor`), so awaiting a query never blocks Swift's cooperative pool.
///
/// Only parameterised statements are offered: values travel as libpq parameters, never spliced
/// into SQL text.
public actor PostgresConnection {
    private let executor: DedicatedThreadExecutor
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    public nonisolated let settings: ConnectionSettings
    /// The checked connection string, nil when libpq must not see it (see `open`); also what
    /// libpq's messages are scrubbed with.
    private nonisolated let connectionString: Result<ConnectionString, ConnectionStringError>
    private let logger: Logger
    /// Only touched from the actor's own thread, and by `deinit` once no reference is left;
    /// `nonisolated(unsafe)` only so that plain deinit may finish it (see there).
    nonisolated(unsafe) var handle: OpaquePointer?
    private var noticeSink: Unmanaged<NoticeSink>?
    private var transactionDepth = 0
    /// Keys of the set-up steps this session has run (`once(_:)`); a new session starts empty.
    /// Statements this session has prepared (`queryPrepared`); a new session starts empty.
    var preparedStatements: Set<String> = []
    /// The role the session writes as after set-up (`service_role` or the session user).
    public private(set) var currentRole: String = ""

    public init(settings: ConnectionSettings, logger: Logger) {
        self.settings = settings
        self.connectionString = Result { () throws(ConnectionStringError) in try ConnectionString(parsing: settings.conninfo) }
        self.logger = logger
        self.executor = DedicatedThreadExecutor(name: "postgres")
    }

    /// Opens a connection (one attempt). Use `reconnect()` for the retrying form.
    public static func connect(settings: ConnectionSettings, logger: Logger) async throws -> PostgresConnection {
        let connection = PostgresConnection(settings: settings, logger: logger)
        try await connection.open()
        return connection
    }

    // A plain (nonisolated) deinit: the last reference is gone, so no query can run concurrently
    // and PQfinish may run on the releasing thread. (`isolated deinit` made Swift 6.3's optimizer
    // report a "circular reference" in modules that inline through this actor, breaking -c release.)
    deinit {
        if let handle { PQfinish(handle) }
        noticeSink?.release()
        executor.shutdown()
    }

    // MARK: - Connecting

    /// One connection attempt plus session set-up (timeouts, role).
    public func open() throws {
        closeHandle()
        // libpq's own parse errors quote the string (a password with a bad escape, a whole URI).
        if case .failure(let problem) = connectionString {
            throw PostgresError(kind: .client, statement: nil, message: "DATABASE_URL \(problem)")
        }
        let keywords = ["dbname", "application_name", "client_encoding", "connect_timeout"]
        let values = [settings.conninfo, settings.applicationName, "UTF8", "10"]
        let connection = withCStringArray(keywords) { keys in
            withCStringArray(values) { vals in PQconnectdbParams(keys, vals, 1) }
        }
        guard let connection else {
            throw PostgresError(kind: .connect, statement: nil, message: "out of memory")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = errorText(connection)
            PQfinish(connection)
            throw PostgresError(kind: .connect, statement: nil, message: message)
        }
        handle = connection
        installNoticeSink(connection)
        try configureSession()
    }

    /// Reconnects with capped exponential backoff, logging each failed attempt.
    public func reconnect() async throws {
        var attempt = 0
        while true {
            attempt += 1
            let delay = settings.reconnect.delay(beforeAttempt: attempt)
            if delay > .zero { try await Task.sleep(for: delay) }
            do {
                try open()
                if attempt > 1 { logger.info("reconnected to PostgreSQL", metadata: ["attempt": "\(attempt)"]) }
                return
            } catch let error as PostgresError {
                if error.kind == .client { throw error }  // a malformed connection string stays malformed
                logger.error("PostgreSQL connection attempt failed", metadata: [
                    "attempt": "\(attempt)", "error": "\(error)",
                ])
                if let max = settings.reconnect.maximumAttempts, attempt >= max { throw error }
            }
        }
    }

    /// False once the server side is gone (killed backend, network loss).
    public var isConnected: Bool {
        guard let handle else { return false }
        return PQstatus(handle) == CONNECTION_OK
    }

    /// The server process id of this session (for tests and diagnostics).
    public var backendPID: Int32 { handle.map { PQbackendPID($0) } ?? 0 }

    public func close() { closeHandle() }

    private func closeHandle() {
        if let handle { PQfinish(handle) }
        handle = nil
        transactionDepth = 0
        preparedStatements = []
    }

    private func configureSession() throws {
        // UTC so timestamps read back parse without a zone table.
        try query("""
            SELECT set_config('statement_timeout', $1, false), set_config('lock_timeout', $2, false),
                   set_config('TimeZone', 'UTC', false)
            """,
                  [settings.statementTimeoutMilliseconds, settings.lockTimeoutMilliseconds],
                  label: "session timeouts")
        if settings.assumeServiceRole {
            let member = try query("""
                SELECT CASE WHEN EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'service_role')
                            THEN pg_catalog.pg_has_role(session_user, 'service_role', 'MEMBER')
                            ELSE false END
                """, label: "service_role membership")
            if member.rows.first?[0] == "t" {
                try query("SET ROLE service_role", label: "set role")
            }
        }
        currentRole = try query("SELECT current_user", label: "current role").rows.first?[0] ?? ""
    }

    // MARK: - Statements

    /// Runs one parameterised statement. `label` names it in errors and logs.
    @discardableResult
    public func query(_ sql: String, _ parameters: [any PostgresEncodable] = [], label: String) throws -> QueryResult {
        guard let handle else {
            throw PostgresError(kind: .connectionLost, statement: label, message: "not connected")
        }
        let texts = parameters.map { $0.postgresText }
        return try outcome(of: withOptionalCStringArray(texts) { values in
            PQexecParams(handle, sql, Int32(texts.count), nil, values, nil, nil, 0)
        }, handle, label: label)
    }

    /// Runs a statement this session prepares once under `name` (PQprepare), then executes by name:
    /// PostgreSQL parses and plans it once per session instead of on every call. For statements
    /// run thousands of times a cycle (the article insert); `name` must be unique per `sql`. If
    /// the server no longer knows the name (`DISCARD ALL`, a pooler that hands out another
    /// session), it is prepared again and the statement retried once.
    @discardableResult
    public func queryPrepared(_ name: String, _ sql: String, _ parameters: [any PostgresEncodable],
                              label: String) throws -> QueryResult {
        do {
            return try executePrepared(name, sql, parameters, label: label)
        } catch let error as PostgresError where error.sqlState == "26000" {
            preparedStatements.remove(name)
            return try executePrepared(name, sql, parameters, label: label)
        }
    }

    private func executePrepared(_ name: String, _ sql: String, _ parameters: [any PostgresEncodable],
                                 label: String) throws -> QueryResult {
        guard let handle else {
            throw PostgresError(kind: .connectionLost, statement: label, message: "not connected")
        }
        if !preparedStatements.contains(name) {
            _ = try outcome(of: PQprepare(handle, name, sql, Int32(parameters.count), nil), handle, label: label)
            preparedStatements.insert(name)
        }
        let texts = parameters.map { $0.postgresText }
        return try outcome(of: withOptionalCStringArray(texts) { values in
            PQexecPrepared(handle, name, Int32(texts.count), values, nil, nil, 0)
        }, handle, label: label)
    }

    /// A statement's rows, or its error; the result is freed either way.
    private func outcome(of result: OpaquePointer?, _ handle: OpaquePointer, label: String) throws -> QueryResult {
        defer { PQclear(result) }
        guard let result else {
            throw PostgresError(kind: .connectionLost, statement: label, message: errorText(handle))
        }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            return QueryResult(result)
        default:
            throw failure(result, handle, label: label)
        }
    }

    /// The error for a failed result: the connection's loss, or the server's message and SQLSTATE.
    func failure(_ result: OpaquePointer?, _ handle: OpaquePointer, label: String) -> PostgresError {
        if result == nil || PQstatus(handle) != CONNECTION_OK {
            return PostgresError(kind: .connectionLost, statement: label, message: errorText(handle))
        }
        let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
        let primary = PQresultErrorField(result, Int32(UInt8(ascii: "M"))).map { String(cString: $0) }
        let detail = PQresultErrorField(result, Int32(UInt8(ascii: "D"))).map { String(cString: $0) }
        var message = primary ?? errorText(handle)
        if let detail { message += " (\(detail))" }
        return PostgresError(kind: .server, statement: label, sqlState: state, message: scrub(message, quotedOnly: true))
    }

    /// Runs a script of several statements without parameters (migrations only: its text is ours,
    /// embedded in the binary, never built from input).
    public func executeScript(_ sql: String, label: String) throws {
        guard let handle else {
            throw PostgresError(kind: .connectionLost, statement: label, message: "not connected")
        }
        let result = PQexec(handle, sql)
        defer { PQclear(result) }
        let status = result.map { PQresultStatus($0) } ?? PGRES_FATAL_ERROR
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK || status == PGRES_EMPTY_QUERY else {
            throw failure(result, handle, label: label)
        }
    }

    // MARK: - Transactions

    /// Runs `body` inside BEGIN/COMMIT; any error rolls back. Not nestable: a nested call is a bug.
    @discardableResult
    public func withTransaction<T: Sendable>(
        label: String, _ body: @Sendable (isolated PostgresConnection) throws -> T
    ) throws -> T {
        guard transactionDepth == 0 else {
            throw PostgresError(kind: .client, statement: label, message: "transactions do not nest")
        }
        try query("BEGIN", label: label)
        transactionDepth = 1
        do {
            let value = try body(self)
            try query("COMMIT", label: label)
            transactionDepth = 0
            return value
        } catch {
            transactionDepth = 0
            if isConnected { _ = try? query("ROLLBACK", label: label) }
            throw error
        }
    }

    /// Runs `body`; when the connection was lost (before or during it), reconnects with backoff
    /// and runs it again. `body` must be safe to repeat: a transaction, or idempotent writes.
    @discardableResult
    public func withReconnect<T: Sendable>(
        label: String, _ body: @Sendable (isolated PostgresConnection) throws -> T
    ) async throws -> T {
        while true {
            do {
                if !isConnected { try await reconnect() }
                return try body(self)
            } catch let error as PostgresError where error.kind == .connectionLost {
                logger.warning("PostgreSQL connection lost; reconnecting", metadata: [
                    "statement": "\(label)", "error": "\(error.message)",
                ])
                try await reconnect()
            }
        }
    }

    // MARK: - Helpers

    /// libpq's message with every part of the connection string but host, port and database scrubbed.
    nonisolated func errorText(_ handle: OpaquePointer?) -> String {
        guard let handle, let raw = PQerrorMessage(handle) else { return "unknown error" }
        let text = TextScan.trimmingWhitespace(String(cString: raw))
        return text.isEmpty ? "unknown error" : scrub(TextScan.replacingLiteral("\n", with: "; ", in: text))
    }

    /// Server messages can name the role ("role \"u\" does not exist"), so they are scrubbed too;
    /// a string that failed its check is never passed on at all.
    nonisolated func scrub(_ text: String, quotedOnly: Bool = false) -> String {
        switch connectionString {
        case .success(let parsed): parsed.scrub(text, quotedOnly: quotedOnly)
        case .failure: TextScan.replacingLiteral(settings.conninfo, with: "***", in: text)
        }
    }

    private func installNoticeSink(_ connection: OpaquePointer) {
        noticeSink?.release()
        let sink = Unmanaged.passRetained(NoticeSink(logger: logger))
        noticeSink = sink
        PQsetNoticeProcessor(connection, { context, message in
            guard let context, let message else { return }
            let sink = Unmanaged<NoticeSink>.fromOpaque(context).takeUnretainedValue()
            sink.logger.debug("postgres notice", metadata: [
                "notice": "\(TextScan.trimmingWhitespace(String(cString: message)))",
            ])
        }, sink.toOpaque())
    }
}

/// Routes server NOTICEs ("relation already exists, skipping") to the log instead of stderr.
private final class NoticeSink: Sendable {
    let logger: Logger
    init(logger: Logger) { self.logger = logger }
}
