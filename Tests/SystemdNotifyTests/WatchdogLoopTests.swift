import Foundation
import Synchronization
import SystemdNotify
import Testing

@Suite("runWatchdog", .tags(.integration))
struct WatchdogLoopTests {
    /// The test steps the loop itself: `pause` reports that a ping went out and waits for the
    /// next turn, so nothing depends on how fast this machine is.
    @Test("pings WATCHDOG=1 repeatedly while alive, stops when cancelled", .timeLimit(.minutes(1)))
    func pingsWhileAlive() async throws {
        let receiver = try DatagramReceiver()
        let notifier = SystemdNotifier(environment: [
            "NOTIFY_SOCKET": receiver.notifySocket, "WATCHDOG_USEC": "20000", "WATCHDOG_PID": String(getpid()),
        ])
        #expect(notifier.watchdogInterval == .milliseconds(10))
        let (pauses, pauseBegan) = AsyncStream.makeStream(of: Duration.self)
        let turnstile = Turnstile()
        let loop = Task {
            await notifier.runWatchdog(pause: { interval in
                pauseBegan.yield(interval)
                await turnstile.pass()
                try Task.checkCancellation()
            })
        }
        var began = pauses.makeAsyncIterator()
        for ping in 1...3 {
            // A pause begins only after sendto() returned, so the datagram is already queued.
            #expect(await began.next() == .milliseconds(10))
            #expect(receiver.receiveString() == "WATCHDOG=1", "ping \(ping)")
            #expect(receiver.isDrained())
            if ping < 3 { turnstile.allow() }
        }
        loop.cancel()
        turnstile.allow()
        await loop.value
        #expect(receiver.isDrained())
        #expect(notifier.droppedMessages == 0)
    }

    @Test("a manager that does not read costs dropped messages, never a blocked sender", .timeLimit(.minutes(1)))
    func fullQueueNeverBlocks() throws {
        let receiver = try DatagramReceiver()
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": receiver.notifySocket])
        // 2,000 datagrams of 1 KB exceed both the datagram queue and the receive buffer; a
        // blocking send would hang here until the time limit.
        let status = String(repeating: "x", count: 1000)
        let results = (0..<2000).map { _ in notifier.status(status) }
        #expect(results.first == true)
        #expect(results.contains(false))
        #expect(notifier.droppedMessages == results.filter { !$0 }.count)
    }

    @Test("sends nothing while isAlive() is false")
    func silentWhenStalled() async throws {
        let receiver = try DatagramReceiver(abstract: ())
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": receiver.notifySocket, "WATCHDOG_USEC": "2000"])
        let checks = Atomic<Int>(0)
        let loop = Task { await notifier.runWatchdog { checks.add(1, ordering: .relaxed); return false } }
        while checks.load(ordering: .relaxed) < 5 { try await Task.sleep(for: .milliseconds(1)) }
        loop.cancel()
        await loop.value
        #expect(receiver.isDrained())
    }

    @Test("returns at once without a watchdog or without a socket", arguments: [
        ["NOTIFY_SOCKET": "@pulse-test-unused"],
        ["WATCHDOG_USEC": "2000"],
        ["NOTIFY_SOCKET": "@pulse-test-unused", "WATCHDOG_USEC": "2000", "WATCHDOG_PID": "1"],
    ])
    func returnsWithoutWatchdog(environment: [String: String]) async {
        let checks = Atomic<Int>(0)
        await SystemdNotifier(environment: environment).runWatchdog { checks.add(1, ordering: .relaxed); return true }
        #expect(checks.load(ordering: .relaxed) == 0)
    }
}

/// Lets one waiter through per `allow()`, whichever comes first.
final class Turnstile: Sendable {
    private let state = Mutex<(permits: Int, waiter: CheckedContinuation<Void, Never>?)>((0, nil))

    func allow() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else { state.permits += 1; return nil }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    func pass() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let admitted = state.withLock { state -> Bool in
                if state.permits > 0 { state.permits -= 1; return true }
                state.waiter = continuation
                return false
            }
            if admitted { continuation.resume() }
        }
    }
}
