/// A failure talking to PostgreSQL. Messages name the statement by its label, never its
/// parameters, and never include the connection string (it may hold a password).
public struct PostgresError: Error, CustomStringConvertible, Sendable {
    public enum Kind: Sendable, Equatable {
        /// Could not connect (refused, authentication, unknown database...).
        case connect
        /// The connection broke while a statement ran; the statement's effect is unknown unless it
        /// was inside a transaction (then it was rolled back).
        case connectionLost
        /// The server rejected the statement.
        case server
        /// Our own misuse (bad state, transaction nesting).
        case client
    }

    public let kind: Kind
    /// The label of the failing statement ("insert articles", "migration 0001"...).
    public let statement: String?
    /// SQLSTATE when the server gave one (e.g. "23505", "57014").
    public let sqlState: String?
    public let message: String

    public init(kind: Kind, statement: String?, sqlState: String? = nil, message: String) {
        self.kind = kind
        self.statement = statement
        self.sqlState = sqlState
        self.message = message
    }

    public var description: String {
        var text = ""
        if let statement { text += "\(statement): " }
        switch kind {
        case .connect: text += "cannot connect to PostgreSQL: "
        case .connectionLost: text += "lost the PostgreSQL connection: "
        case .server, .client: break
        }
        text += message
        if let sqlState { text += " (SQLSTATE \(sqlState))" }
        return text
    }

    /// True when retrying on a new connection may succeed.
    public var isConnectionProblem: Bool { kind == .connect || kind == .connectionLost }

    /// True when this session should not be used again: the connection is gone (class 08, or
    /// libpq lost it), the server is shutting down or starting (57P01-57P03), the session is
    /// read-only (25006: after a failover it may still point at the demoted primary, or was opened
    /// while the database refused writes and keeps that default), or a pooler gave us a server
    /// session whose prepared statements are not ours (26000, 42P05). A new session may succeed.
    public var sessionIsUnusable: Bool {
        if isConnectionProblem { return true }
        guard let sqlState else { return false }
        return sqlState.hasPrefix("08") || Self.unusableSessionStates.contains(sqlState)
    }

    static let unusableSessionStates: Set<String> = ["57P01", "57P02", "57P03", "25006", "26000", "42P05"]

    /// Serialization failures and deadlocks: the transaction may simply be run again.
    public var isRetryableConflict: Bool { sqlState == "40001" || sqlState == "40P01" }

    /// True when the same work may succeed a little later without anyone changing anything: the
    /// session is unusable, a conflict, a statement or lock timeout (57014, 55P03), or the server
    /// is short of resources (class 53: too many connections, out of memory or disk).
    public var isTransient: Bool {
        if sessionIsUnusable || isRetryableConflict { return true }
        guard let sqlState else { return false }
        return sqlState.hasPrefix("53") || sqlState == "57014" || sqlState == "55P03"
    }
}
