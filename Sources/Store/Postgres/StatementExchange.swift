import CLibPQ
import Glibc

/// One statement, or a pipeline of them, on the wire: sent, then answered within a deadline.
///
/// Results are read the asynchronous libpq way (`PQisBusy`, `poll` on the socket,
/// `PQconsumeInput`) on the connection's own thread, so that a server that never answers cannot
/// hold a session forever: behind a pooler, a statement waits in the pooler's queue while it
/// cannot log in to the database (pgbouncer's query_wait_timeout is two minutes), where the
/// server's own statement_timeout does not run. Past `answerTimeout` the session is closed and the
/// statement fails as a lost connection, which the unit of work's retry and the daemon's back-off
/// handle like any other.
extension PostgresConnection {
    struct Statement {
        let sql: String
        let parameters: [String?]
    }

    /// The server's statement_timeout plus 5 s to hear of it; none when statements are unbounded
    /// (migrations).
    var answerTimeout: Duration? {
        settings.statementTimeoutMilliseconds > 0 ? .milliseconds(settings.statementTimeoutMilliseconds + 5_000) : nil
    }

    /// Sends one statement (`send` queues it) and reads all its results: the last one, or the first
    /// error once all are read.
    @discardableResult
    func exchange(label: String, _ send: (OpaquePointer) -> Int32) throws -> QueryResult {
        guard let handle else {
            throw PostgresError(kind: .connectionLost, statement: label, message: "not connected")
        }
        guard send(handle) == 1 else { throw lost(handle, label: label) }
        let deadline = answerTimeout.map { ContinuousClock.now + $0 }
        var last: QueryResult?
        var firstError: PostgresError?
        while let result = try nextResult(handle, deadline: deadline, label: label) {
            defer { PQclear(result) }
            switch PQresultStatus(result) {
            case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY: last = QueryResult(result)
            default: firstError = firstError ?? failure(result, handle, label: label)
            }
        }
        if PQstatus(handle) != CONNECTION_OK { throw lost(handle, label: label) }
        if let firstError { throw firstError }
        guard let last else { throw lost(handle, label: label) }
        return last
    }

    /// Sends `statements` and one Sync in pipeline mode and reads their results: one round trip,
    /// and one implicit transaction for all of them unless they open one themselves. The first
    /// error is thrown after the pipeline is read to its end, so the session stays usable; a lost
    /// connection closes it.
    func pipeline(_ statements: [Statement], label: String) throws -> [QueryResult] {
        guard let handle else {
            throw PostgresError(kind: .connectionLost, statement: label, message: "not connected")
        }
        guard PQenterPipelineMode(handle) == 1 else { throw lost(handle, label: label) }
        for statement in statements {
            let sent = withCStringArray(statement.parameters) { values in
                PQsendQueryParams(handle, statement.sql, Int32(statement.parameters.count), nil, values, nil, nil, 0)
            }
            guard sent == 1 else { throw lost(handle, label: label) }
        }
        guard PQpipelineSync(handle) == 1 else { throw lost(handle, label: label) }
        let deadline = answerTimeout.map { ContinuousClock.now + $0 }
        var results: [QueryResult] = []
        var firstError: PostgresError?
        for _ in statements {
            guard let result = try nextResult(handle, deadline: deadline, label: label) else { throw lost(handle, label: label) }
            defer { PQclear(result) }
            switch PQresultStatus(result) {
            case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
                results.append(QueryResult(result))
            case PGRES_PIPELINE_ABORTED:
                break
            default:
                if PQstatus(handle) != CONNECTION_OK { throw lost(handle, label: label) }
                firstError = firstError ?? failure(result, handle, label: label)
            }
            // Each statement's results end with a NULL.
            while let extra = try nextResult(handle, deadline: deadline, label: label) { PQclear(extra) }
        }
        guard let sync = try nextResult(handle, deadline: deadline, label: label) else { throw lost(handle, label: label) }
        let synced = PQresultStatus(sync) == PGRES_PIPELINE_SYNC
        PQclear(sync)
        guard synced, PQexitPipelineMode(handle) == 1 else { throw lost(handle, label: label) }
        if let firstError { throw firstError }
        return results
    }

    /// `PQgetResult` once it will not block, waiting for the socket at most until `deadline`.
    private func nextResult(_ handle: OpaquePointer, deadline: ContinuousClock.Instant?, label: String) throws -> OpaquePointer? {
        while PQisBusy(handle) == 1 {
            var timeout: Int32 = -1
            if let deadline {
                let left = deadline - ContinuousClock.now
                guard left > .zero else {
                    let seconds = answerTimeout.map { $0.components.seconds } ?? 0
                    close()
                    throw PostgresError(kind: .connectionLost, statement: label,
                                        message: "no answer within \(seconds) s; the session was closed")
                }
                timeout = Int32(clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1)
            }
            var descriptor = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
            if poll(&descriptor, 1, timeout) < 0 && errno != EINTR { break }
            // On a broken connection this fails, and PQgetResult reports why.
            if PQconsumeInput(handle) == 0 { break }
        }
        return PQgetResult(handle)
    }

    /// The connection's loss as an error (libpq's own words); the session is closed.
    private func lost(_ handle: OpaquePointer, label: String) -> PostgresError {
        let error = PostgresError(kind: .connectionLost, statement: label, message: errorText(handle))
        close()
        return error
    }
}
