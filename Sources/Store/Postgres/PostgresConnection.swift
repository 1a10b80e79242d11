import CLibPQ
import Logging
import TextSupport

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
    /// The role every transaction of this session writes as (`service_role` when the session user
    /// is a member and the settings ask for it, else the session user itself).
    public private(set) var currentRole: String = ""
    /// The value `set_config('role', ...)` gets in each transaction: `service_role`, or `none`
    /// (the session user), so a role another client of a pooler left behind is never inherited.
    private var transactionRole = "none"

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
        close()
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

    /// Reconnects with capped exponential backoff, logging each failed attempt; gives up after
    /// `maximumAttempts` (the settings' policy when nil).
    public func reconnect(maximumAttempts: Int? = nil) async throws {
        let limit = maximumAttempts ?? settings.reconnect.maximumAttempts
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
                if let limit, attempt >= limit { throw error }
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

    public func close() {
        if let handle { PQfinish(handle) }
        handle = nil
        transactionDepth = 0
    }

    /// Every later transaction of this session runs as `role` (which the session user must be a
    /// member of), as `SET ROLE` would make a whole session: for clients that act as an API role.
    public func useRole(_ role: String) throws {
        transactionRole = role
        currentRole = try query("SELECT current_user", label: "current role").rows.first?[0] ?? ""
    }

    /// Nothing is set for the session as a whole: behind a transaction-mode pooler (Supabase's on
    /// port 6543, pgbouncer) the next transaction may run on another server session, and a session
    /// setting would leak to whichever client gets this one next. The timeouts, the time zone and
    /// the role are set for each transaction instead (`transactionSettings`); here we only learn
    /// which role that is.
    private func configureSession() throws {
        transactionRole = "none"
        if settings.assumeServiceRole {
            let member = try query("""
                SELECT CASE WHEN EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'service_role')
                            THEN pg_catalog.pg_has_role(session_user, 'service_role', 'MEMBER')
                            ELSE false END
                """, label: "service_role membership")
            if member.rows.first?[0] == "t" { transactionRole = "service_role" }
        }
        currentRole = try query("SELECT current_user", label: "current role").rows.first?[0] ?? ""
    }

    /// Run at the start of every transaction, explicit or implicit: `set_config(..., true)` lasts
    /// to the transaction's end, so no state outlives it. The role goes through `set_config` as
    /// PostgREST sets it (`SET LOCAL ROLE` takes no parameter).
    private static let transactionSettingsSQL = """
        SELECT set_config('statement_timeout', $1, true), set_config('lock_timeout', $2, true),
               set_config('TimeZone', 'UTC', true), set_config('role', $3, true)
        """

    var transactionSettings: Statement {
        Statement(sql: Self.transactionSettingsSQL, parameters: [
            String(settings.statementTimeoutMilliseconds), String(settings.lockTimeoutMilliseconds), transactionRole,
        ])
    }

    // MARK: - Statements

    /// Runs one parameterised statement (as libpq's unnamed statement: nothing named outlives it).
    /// Outside a transaction it runs in an implicit one of its own, behind the transaction
    /// settings, in one round trip (libpq's pipeline mode: both statements and one Sync).
    /// `label` names it in errors and logs.
    @discardableResult
    public func query(_ sql: String, _ parameters: [any PostgresEncodable] = [], label: String) throws -> QueryResult {
        let texts = parameters.map { $0.postgresText }
        if transactionDepth > 0 {
            return try exchange(label: label) { handle in
                withCStringArray(texts) { values in
                    PQsendQueryParams(handle, sql, Int32(texts.count), nil, values, nil, nil, 0)
                }
            }
        }
        return try pipeline([transactionSettings, Statement(sql: sql, parameters: texts)], label: label)[1]
    }

    /// Runs one statement that cannot run inside a transaction block (CREATE DATABASE, VACUUM),
    /// alone, without the transaction settings and without parameters: its text must be ours.
    @discardableResult
    public func runOutsideTransaction(_ sql: String, label: String) throws -> QueryResult {
        guard transactionDepth == 0 else {
            throw PostgresError(kind: .client, statement: label, message: "cannot run inside a transaction")
        }
        return try exchange(label: label) { handle in PQsendQuery(handle, sql) }
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
    /// embedded in the binary, never built from input), in a transaction of its own unless it is
    /// inside one, so that the transaction settings apply to it.
    public func executeScript(_ sql: String, label: String) throws {
        guard transactionDepth > 0 else {
            return try withTransaction(label: label) { db in try db.executeScript(sql, label: label) }
        }
        try exchange(label: label) { handle in PQsendQuery(handle, sql) }
    }

    // MARK: - Transactions

    /// Runs `body` inside BEGIN/COMMIT, after the transaction settings (sent with BEGIN in one
    /// round trip); any error rolls back. Not nestable: a nested call is a bug.
    @discardableResult
    public func withTransaction<T: Sendable>(
        label: String, _ body: @Sendable (isolated PostgresConnection) throws -> T
    ) throws -> T {
        guard transactionDepth == 0 else {
            throw PostgresError(kind: .client, statement: label, message: "transactions do not nest")
        }
        do {
            _ = try pipeline([Statement(sql: "BEGIN", parameters: []), transactionSettings], label: label)
        } catch {
            if isConnected { _ = try? pipeline([Statement(sql: "ROLLBACK", parameters: [])], label: label) }
            throw error
        }
        transactionDepth = 1
        // COMMIT and ROLLBACK go while the depth still says "inside": as plain statements, never
        // behind the transaction settings (which an aborted transaction would refuse).
        defer { transactionDepth = 0 }
        do {
            let value = try body(self)
            try query("COMMIT", label: label)
            return value
        } catch {
            if isConnected { _ = try? query("ROLLBACK", label: label) }
            throw error
        }
    }

    /// Runs `body`, a unit of work that is safe to repeat (a transaction, or idempotent writes).
    /// When it fails because this session is no good (`PostgresError.sessionIsUnusable`: the
    /// connection lost, the server shutting down, a read-only session after a failover, a
    /// pooler's prepared-statement clash), the session is replaced and `body` runs once more on
    /// the fresh one; after a deadlock or serialization failure it runs once more as it is. A
    /// second failure is thrown, for the caller to back off.
    @discardableResult
    public func withReconnect<T: Sendable>(
        label: String, _ body: @Sendable (isolated PostgresConnection) throws -> T
    ) async throws -> T {
        if !isConnected { try await reconnect(maximumAttempts: Self.retryConnectAttempts) }
        do {
            return try body(self)
        } catch let error as PostgresError where error.sessionIsUnusable {
            logger.warning("PostgreSQL session unusable; reconnecting to retry once", metadata: [
                "statement": "\(label)", "error": "\(error)",
            ])
            close()
            try await reconnect(maximumAttempts: Self.retryConnectAttempts)
            return try body(self)
        } catch let error as PostgresError where error.isRetryableConflict {
            // A deadlock or serialization failure rolled the work back; run it again.
            logger.info("PostgreSQL deadlock or serialization failure; retrying once", metadata: [
                "statement": "\(label)", "error": "\(error)",
            ])
            return try body(self)
        }
    }

    /// Connection attempts a unit of work makes before it fails (about a second with the default
    /// backoff): a daemon backs off between units, and must report an outage, not hide it.
    static let retryConnectAttempts = 3

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
