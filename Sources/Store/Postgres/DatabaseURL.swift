import TextSupport

extension ConnectionString {
    /// `DATABASE_URL` as the service takes it: a libpq URI (`postgresql://` / `postgres://`) or a
    /// conninfo string (`host=... password=...`) without control or bidi characters, read by the
    /// rules libpq applies, so a malformed one is refused at start with a reason instead of libpq
    /// quoting it back on every retry. The error never holds any of the value: it may be a secret.
    public init(databaseURL raw: String) throws(ConnectionStringError) {
        guard !raw.unicodeScalars.contains(where: HiddenCharacter.isHidden) else {
            throw ConnectionStringError("contains control characters")
        }
        try self.init(parsing: raw)
    }
}
