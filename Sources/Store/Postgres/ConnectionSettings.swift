/// How to reach PostgreSQL and how each session is set up.
public struct ConnectionSettings: Sendable {
    /// A libpq URI (`postgresql://...`) or conninfo string (`host=... dbname=...`). Secret: it may
    /// hold a password, so it is never logged or put in an error; use `redacted` for messages.
    public var conninfo: String
    public var applicationName: String
    /// `statement_timeout` of every transaction (a function-level setting does not bound a call);
    /// 0 leaves statements unbounded, as migrations are.
    public var statementTimeoutMilliseconds: Int
    /// `lock_timeout` of every transaction, so a writer never queues forever behind a long lock.
    public var lockTimeoutMilliseconds: Int
    /// Write as `service_role` when the session user is a member (Supabase: bypasses RLS), set in
    /// each transaction.
    public var assumeServiceRole: Bool
    /// Reconnect policy for a lost connection.
    public var reconnect: ReconnectPolicy

    public init(
        conninfo: String,
        applicationName: String = "pulse-ingest",
        statementTimeoutMilliseconds: Int = 30_000,
        lockTimeoutMilliseconds: Int = 5_000,
        assumeServiceRole: Bool = true,
        reconnect: ReconnectPolicy = .init()
    ) {
        self.conninfo = conninfo
        self.applicationName = applicationName
        self.statementTimeoutMilliseconds = statementTimeoutMilliseconds
        self.lockTimeoutMilliseconds = lockTimeoutMilliseconds
        self.assumeServiceRole = assumeServiceRole
        self.reconnect = reconnect
    }
}

/// Capped exponential backoff between reconnect attempts.
public struct ReconnectPolicy: Sendable {
    public var initialDelay: Duration
    public var maximumDelay: Duration
    /// How many attempts before giving up; nil keeps trying (the daemon's choice).
    public var maximumAttempts: Int?

    public init(initialDelay: Duration = .milliseconds(250), maximumDelay: Duration = .seconds(30),
                maximumAttempts: Int? = 8) {
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
        self.maximumAttempts = maximumAttempts
    }

    /// Delay before attempt `n` (1-based): initial * 2^(n-1), capped.
    public func delay(beforeAttempt n: Int) -> Duration {
        guard n > 1 else { return .zero }
        var delay = initialDelay
        for _ in 1..<min(n, 40) {
            delay *= 2
            if delay >= maximumDelay { return maximumDelay }
        }
        return delay
    }
}
