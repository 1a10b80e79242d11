import Foundation
import Synchronization
import SystemdNotify
import Testing

@Suite("runWatchdog", .tags(.integration))
struct WatchdogLoopTests {
    @Test("pings WATCHDOG=1 repeatedly while alive, stops when cancelled")
    func pingsWhileAlive() async throws {
        let receiver = try DatagramReceiver()
        let notifier = SystemdNotifier(environment: [
            "NOTIFY_SOCKET": receiver.notifySocket, "WATCHDOG_USEC": "20000", "WATCHDOG_PID": String(getpid()),
        ])
        #expect(notifier.watchdogInterval == .milliseconds(10))
        let loop = Task { await notifier.runWatchdog() }
        for _ in 0..<3 { #expect(await receiver.nextString() == "WATCHDOG=1") }
        loop.cancel()
        await loop.value
        while let text = receiver.receiveString() { #expect(text == "WATCHDOG=1") }
        try await Task.sleep(for: .milliseconds(30))
        #expect(receiver.isDrained())
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
