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

    /// At most this many page analyses run at once (each may hold up to the parser's 256 MB);
    /// the rest wait their turn without holding a thread. An abandoned analysis keeps its slot
    /// until its thread really ends, so memory stays bounded during a drain too.
    public static let pageSlots = Gate(slots: max(2, ProcessInfo.processInfo.activeProcessorCount))

    public static func run<T: Sendable>(gate: Gate? = nil, _ work: @escaping @Sendable () throws -> T) async throws -> T {
        guard let gate else { return try await start(work) }
        try await gate.enter()
        let release = ReleaseOnce(gate)
        do {
            return try await start {
                release.started.store(true, ordering: .releasing)
                defer { release() }
                return try work()
            }
        } catch {
            // Cancelled before the thread ran the work: nothing else will give the slot back.
            if !release.started.load(ordering: .acquiring) { release() }
            throw error
        }
    }

    private final class ReleaseOnce: Sendable {
        let gate: Gate
        let started = Atomic<Bool>(false)
        let released = Atomic<Bool>(false)
        init(_ gate: Gate) { self.gate = gate }
        func callAsFunction() { if !released.exchange(true, ordering: .acquiringAndReleasing) { gate.leave() } }
    }

    /// Threads started here that have not ended, abandoned ones included.
    public static var runningThreads: Int { threads.count }

    /// Blocks the calling thread until every thread started here has ended, or `timeout` has
    /// passed; true when none is left. The process calls it before it ends: an abandoned parse
    /// must not be running while `exit` tears down the C libraries it is inside.
    public static func waitForThreads(timeout: Duration) -> Bool { threads.waitUntilNone(timeout: timeout) }

    private static let threads = ThreadCount()

    private static func start<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        let slot = Slot<T>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                slot.continuation.withLock { $0 = continuation }
                if Task.isCancelled {
                    slot.take()?.resume(throwing: Abandoned())
                    return
                }
                threads.started()
                DetachedThread.start(name: "pulse-offpool", stackSize: 8 << 20) {
                    defer { threads.ended() }
                    let result = Result { try work() }
                    slot.take()?.resume(with: result)
                }
            }
        } onCancel: {
            slot.take()?.resume(throwing: Abandoned())
        }
    }
}

/// How many OffPool threads are alive, and a way to wait for none (blocking: only for the end of
/// the process, never on the cooperative pool).
final class ThreadCount: @unchecked Sendable {
    // @unchecked: `alive` is only touched while `condition` is locked.
    private let condition = NSCondition()
    private var alive = 0

    var count: Int {
        condition.lock()
        defer { condition.unlock() }
        return alive
    }

    func started() {
        condition.lock()
        alive += 1
        condition.unlock()
    }

    func ended() {
        condition.lock()
        alive -= 1
        if alive == 0 { condition.broadcast() }
        condition.unlock()
    }

    func waitUntilNone(timeout: Duration) -> Bool {
        let deadline = Date().addingTimeInterval(Double(timeout.components.seconds)
            + Double(timeout.components.attoseconds) / 1e18)
        condition.lock()
        defer { condition.unlock() }
        while alive > 0 {
            if !condition.wait(until: deadline) { break }
        }
        return alive == 0
    }
}

/// A counting semaphore for async callers: FIFO, and a cancelled waiter leaves the queue.
public final class Gate: Sendable {
    private struct State {
        var free: Int
        var waiters: [(id: UUID, continuation: CheckedContinuation<Void, any Error>)] = []
    }
    private let state: Mutex<State>

    public init(slots: Int) { state = Mutex(State(free: max(1, slots))) }

    func enter() async throws {
        let id = UUID()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // Task.isCancelled is set before the cancellation handler runs, so checked under
                // the lock it cannot miss a handler that ran before this waiter was queued.
                let admitted = state.withLock { state -> Bool? in
                    if Task.isCancelled { return nil }
                    if state.free > 0, state.waiters.isEmpty {
                        state.free -= 1
                        return true
                    }
                    state.waiters.append((id, continuation))
                    return false
                }
                switch admitted {
                case true?: continuation.resume()
                case nil: continuation.resume(throwing: OffPool.Abandoned())
                default: break
                }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index).continuation
            }
            waiter?.resume(throwing: OffPool.Abandoned())
        }
    }

    func leave() {
        let next = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            if state.waiters.isEmpty {
                state.free += 1
                return nil
            }
            return state.waiters.removeFirst().continuation
        }
        next?.resume()
    }
}
