import Foundation
import Synchronization

/// Runs blocking work that cannot be interrupted (a gumbo or libxml2 parse of untrusted bytes)
/// on a thread of its own, never on the cooperative pool: with two pool threads, two slow parses
/// would otherwise stall every other source's storing, the readiness loop and shutdown.
/// Cancelling the awaiting task abandons the work: the caller resumes at once with `Abandoned`,
/// and the thread finishes in the background (parses are budgeted, so it does so within ~1 s).
public enum OffPool {
    public struct Abandoned: Error, CustomStringConvertible {
        public var description: String { "abandoned: cancelled while parsing (shutdown drain deadline)" }
    }

    private final class Slot<T: Sendable>: Sendable {
        let continuation = Mutex<CheckedContinuation<T, any Error>?>(nil)
        func take() -> CheckedContinuation<T, any Error>? { continuation.withLock { $0.take() } }
    }

    public static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        let slot = Slot<T>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                slot.continuation.withLock { $0 = continuation }
                if Task.isCancelled {
                    slot.take()?.resume(throwing: Abandoned())
                    return
                }
                let thread = Thread {
                    let result = Result { try work() }
                    slot.take()?.resume(with: result)
                }
                thread.stackSize = 8 << 20
                thread.start()
            }
        } onCancel: {
            slot.take()?.resume(throwing: Abandoned())
        }
    }
}
