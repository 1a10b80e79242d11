import Foundation

/// Runs blocking work (waiting on a child process, reading its pipes to the end) on a thread of
/// its own. Swift Testing runs tests in parallel on the cooperative pool, which has one thread
/// per core here: a test blocking one for seconds starved timing-sensitive tests elsewhere.
public func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}
