extension ConnectionString {
    /// `DATABASE_URL` as the service takes it: a libpq URI (`postgresql://` / `postgres://`) or a
    /// conninfo string (`host=... password=...`) without control or bidi characters, read by the
    /// rules libpq applies, so a malformed one is refused at start with a reason instead of libpq
    /// quoting it back on every retry. The error never holds any of the value: it may be a secret.
    public init(databaseURL raw: String) throws(ConnectionStringError) {
        // C0 and C1 controls and the bidi controls (U+061C, U+200E-F, U+202A-E, U+2066-9).
        guard !raw.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0.properties.isBidiControl })
        else {
            throw ConnectionStringError("contains control characters")
        }
        try self.init(parsing: raw)
    }
}
