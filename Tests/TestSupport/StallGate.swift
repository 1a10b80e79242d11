import Dispatch
import Synchronization

/// Held server side until the test lets go (bounded, so a failing test cannot hang).
public final class StallGate: Sendable {
    public let semaphore = DispatchSemaphore(value: 0)
    public let inside = Atomic<Int>(0)

    public init() {}

    public func hold() {
        inside.add(1, ordering: .relaxed)
        _ = semaphore.wait(timeout: .now() + 100)
        inside.subtract(1, ordering: .relaxed)
    }
}
