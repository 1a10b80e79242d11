import Foundation
import SystemdNotify
import Testing

extension Tag {
    @Tag static var integration: Self
}

@Suite("sd_notify datagrams on a real socket", .tags(.integration))
struct SystemdNotifierSocketTests {
    /// Every message, byte for byte, on both a filesystem and an abstract socket.
    @Test("each message arrives exactly", arguments: [false, true])
    func eachMessageArrivesExactly(abstract: Bool) throws {
        let receiver = abstract ? try DatagramReceiver(abstract: ()) : try DatagramReceiver()
        #expect(receiver.notifySocket.hasPrefix(abstract ? "@" : "/"))
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": receiver.notifySocket])
        #expect(notifier.isEnabled)

        #expect(notifier.ready())
        #expect(receiver.receive() == Array("READY=1".utf8))

        #expect(notifier.ready(status: "serving 136 sources"))
        #expect(receiver.receiveString() == "READY=1\nSTATUS=serving 136 sources")

        #expect(notifier.status("pass 3: 12 sources, 40 new"))
        #expect(receiver.receiveString() == "STATUS=pass 3: 12 sources, 40 new")

        #expect(notifier.stopping())
        #expect(receiver.receiveString() == "STOPPING=1")

        #expect(notifier.watchdog())
        #expect(receiver.receiveString() == "WATCHDOG=1")

        #expect(receiver.isDrained())
    }

    @Test("RELOADING carries the current CLOCK_MONOTONIC in microseconds")
    func reloadingCarriesMonotonicTime() throws {
        let receiver = try DatagramReceiver()
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": receiver.notifySocket])
        let before = monotonicMicroseconds()
        #expect(notifier.reloading())
        let after = monotonicMicroseconds()
        let text = try #require(receiver.receiveString())
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 2)
        #expect(lines.first == "RELOADING=1")
        let prefix = "MONOTONIC_USEC="
        let last = try #require(lines.last)
        #expect(last.hasPrefix(prefix))
        let usec = try #require(UInt64(last.dropFirst(prefix.count)))
        #expect(usec >= before && usec <= after)
    }

    @Test("status text cannot add lines or control characters")
    func statusIsOneLine() throws {
        let receiver = try DatagramReceiver(abstract: ())
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": receiver.notifySocket])
        #expect(notifier.status("ok\nREADY=1\r\nERRNO=5\u{07}\u{202E}x"))
        #expect(receiver.receiveString() == "STATUS=ok READY=1  ERRNO=5x")
        #expect(notifier.ready(status: "a\u{2028}b"))
        #expect(receiver.receiveString() == "READY=1\nSTATUS=a b")
    }

    @Test("very long status text is capped at 1024 bytes on a character boundary")
    func longStatusIsCapped() throws {
        let receiver = try DatagramReceiver()
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": receiver.notifySocket])
        #expect(notifier.status(String(repeating: "é", count: 5000)))
        let text = try #require(receiver.receiveString())
        #expect(text == "STATUS=" + String(repeating: "é", count: 512))
    }

    @Test("a vanished socket is reported as false, not thrown")
    func vanishedSocketReturnsFalse() throws {
        let receiver = try DatagramReceiver()
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": receiver.notifySocket])
        #expect(notifier.watchdog())
        receiver.shutDown()
        #expect(notifier.isEnabled)
        #expect(!notifier.watchdog())
        #expect(!notifier.ready(status: "x"))
    }

    @Test("an abstract name nobody bound is reported as false")
    func unboundAbstractReturnsFalse() {
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": "@pulse-test-nobody-\(UUID().uuidString)"])
        #expect(notifier.isEnabled)
        #expect(!notifier.stopping())
    }
}

@Suite("NOTIFY_SOCKET and watchdog environment")
struct SystemdNotifierEnvironmentTests {
    @Test("disabled without a usable NOTIFY_SOCKET", arguments: [
        nil, "", "relative/notify", "@", "vsock:2:1234",
        "/" + String(repeating: "a", count: 107), "@" + String(repeating: "a", count: 108),
    ] as [String?])
    func disabledWithoutUsableSocket(value: String?) {
        var environment: [String: String] = [:]
        environment["NOTIFY_SOCKET"] = value
        let notifier = SystemdNotifier(environment: environment)
        #expect(!notifier.isEnabled)
        #expect(!notifier.ready())
        #expect(!notifier.watchdog())
    }

    @Test("the longest addresses that fit sun_path are accepted")
    func longestAddressesFit() {
        #expect(SystemdNotifier(environment: ["NOTIFY_SOCKET": "/" + String(repeating: "a", count: 106)]).isEnabled)
        #expect(SystemdNotifier(environment: ["NOTIFY_SOCKET": "@" + String(repeating: "a", count: 107)]).isEnabled)
    }

    @Test("watchdog interval is half of WATCHDOG_USEC when WATCHDOG_PID is ours")
    func watchdogIntervalForUs() {
        let environment = ["WATCHDOG_USEC": "60000000", "WATCHDOG_PID": "4242"]
        let notifier = SystemdNotifier(environment: environment, processID: 4242)
        #expect(notifier.watchdogInterval == .seconds(30))
    }

    @Test("watchdog interval without WATCHDOG_PID applies to this process")
    func watchdogIntervalWithoutPID() {
        let notifier = SystemdNotifier(environment: ["WATCHDOG_USEC": "3"])
        #expect(notifier.watchdogInterval == .microseconds(1))
    }

    @Test("the default process ID is this process")
    func defaultProcessIDIsOurs() {
        let environment = ["WATCHDOG_USEC": "20000000", "WATCHDOG_PID": String(getpid())]
        #expect(SystemdNotifier(environment: environment).watchdogInterval == .seconds(10))
        let other = ["WATCHDOG_USEC": "20000000", "WATCHDOG_PID": String(getpid() + 1)]
        #expect(SystemdNotifier(environment: other).watchdogInterval == nil)
    }

    @Test("no watchdog interval for another PID or malformed values", arguments: [
        ["WATCHDOG_USEC": "60000000", "WATCHDOG_PID": "4243"],
        ["WATCHDOG_USEC": "60000000", "WATCHDOG_PID": "not-a-pid"],
        ["WATCHDOG_USEC": "60000000", "WATCHDOG_PID": "0"],
        ["WATCHDOG_USEC": "60000000", "WATCHDOG_PID": ""],
        ["WATCHDOG_USEC": "0", "WATCHDOG_PID": "4242"],
        ["WATCHDOG_USEC": "-5", "WATCHDOG_PID": "4242"],
        ["WATCHDOG_USEC": "60s", "WATCHDOG_PID": "4242"],
        ["WATCHDOG_PID": "4242"],
        [:],
    ])
    func noWatchdogInterval(environment: [String: String]) {
        #expect(SystemdNotifier(environment: environment, processID: 4242).watchdogInterval == nil)
    }
}

private func monotonicMicroseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1_000
}
