import Logging
import ServiceLifecycle

/// A service run on its own as the process's group runs it, for tests: `stop()` shuts it down
/// gracefully (a NIO listener must never be cancelled while it serves, swift-nio#2637).
public final class RunningService: Sendable {
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    public init(_ service: some Service) {
        let group = ServiceGroup(configuration: .init(services: [service], logger: Logger(label: "test")))
        self.group = group
        task = Task { try await group.run() }
    }

    /// Graceful shutdown, then the service's end (its error, if it failed).
    public func stop() async throws {
        await group.triggerGracefulShutdown()
        try await task.value
    }

    /// Runs the listener `make` builds (given the `onBound` to pass on) until it is bound, and
    /// returns it with its port; throws the listener's error when it cannot bind.
    public static func listening(_ make: (@escaping @Sendable (Int) -> Void) -> some Service) async throws
        -> (running: RunningService, port: Int) {
        let (ports, bound) = AsyncStream.makeStream(of: Int.self)
        let running = RunningService(make { port in bound.yield(port); bound.finish() })
        let watcher = Task { [task = running.task] in
            _ = try? await task.value
            bound.finish()
        }
        defer { watcher.cancel() }
        var iterator = ports.makeAsyncIterator()
        if let port = await iterator.next() { return (running, port) }
        try await running.task.value
        throw ListenerEnded()
    }

    struct ListenerEnded: Error, CustomStringConvertible {
        var description: String { "the listener ended before it was bound" }
    }
}
