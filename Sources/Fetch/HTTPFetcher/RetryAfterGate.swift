import Synchronization

/// Remembers, per source key, until when the server asked us to stay away, so a caller that
/// retries early gets `.rateLimited` without another request reaching the server.
final class RetryAfterGate: Sendable {
    private let until = Mutex<[String: ContinuousClock.Instant]>([:])

    func remaining(for key: String, now: ContinuousClock.Instant = .now) -> Duration? {
        until.withLock { table in
            guard let deadline = table[key] else { return nil }
            if deadline <= now {
                table[key] = nil
                return nil
            }
            return deadline - now
        }
    }

    func record(_ key: String, retryAfter: Duration, now: ContinuousClock.Instant = .now) {
        guard retryAfter > .zero else { return }
        until.withLock { $0[key] = now + retryAfter }
    }
}
