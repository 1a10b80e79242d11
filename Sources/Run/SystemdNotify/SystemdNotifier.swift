import Glibc
import Synchronization
import TextSupport

/// The sd_notify(3) protocol spoken directly: one datagram of newline-separated KEY=VALUE lines to
/// the AF_UNIX socket named by `NOTIFY_SOCKET`.
///
/// Hand-written rather than linking libsystemd: the protocol is a single `sendto`, and keeping
/// libsystemd out means the binary needs no extra shared library on hosts without systemd (containers,
/// cron). When `NOTIFY_SOCKET` is unset every call is a cheap no-op returning `false`.
/// Failures (socket gone, manager restarted) never throw: the daemon must keep working, so each call
/// reports success as a `Bool` for callers that want to log it.
///
/// Sending never blocks: the socket is non-blocking and each datagram goes with `MSG_DONTWAIT`, so
/// a manager that is slow to read (its queue holds 10 datagrams by default) costs a dropped
/// message, counted in `droppedMessages`, never a stalled thread of the cooperative pool.
public struct SystemdNotifier: Sendable {
    private let address: NotifySocketAddress?
    private let drops = DropCounter()
    /// When to ping the watchdog (half of `WatchdogSec=`), or nil when no watchdog is armed for us.
    public let watchdogInterval: Duration?

    /// Reads `NOTIFY_SOCKET`, `WATCHDOG_USEC` and `WATCHDOG_PID` from `environment`.
    /// `processID` is compared with `WATCHDOG_PID`; it defaults to this process.
    public init(environment: [String: String], processID: Int32 = getpid()) {
        address = environment["NOTIFY_SOCKET"].flatMap(NotifySocketAddress.init)
        watchdogInterval = Self.watchdogInterval(environment: environment, processID: processID)
    }

    /// True when `NOTIFY_SOCKET` names a usable address (the process runs under a notify unit).
    public var isEnabled: Bool { address != nil }

    /// Messages not delivered because the socket's queue was full or the manager was gone.
    public var droppedMessages: Int { drops.count.load(ordering: .relaxed) }

    /// Start-up finished: systemd moves the unit from "activating" to "active". Also sent after a
    /// reload completes.
    @discardableResult
    public func ready(status: String? = nil) -> Bool {
        var fields = [("READY", "1")]
        if let status { fields.append(("STATUS", Self.sanitizedStatus(status))) }
        return send(fields)
    }

    /// Free-form one-line status shown by `systemctl status`.
    @discardableResult
    public func status(_ text: String) -> Bool {
        send([("STATUS", Self.sanitizedStatus(text))])
    }

    /// Shutdown began (drain in progress); systemd stops expecting watchdog pings as "alive".
    @discardableResult
    public func stopping() -> Bool {
        send([("STOPPING", "1")])
    }

    /// Keep-alive for `WatchdogSec=`; send every `watchdogInterval`.
    @discardableResult
    public func watchdog() -> Bool {
        send([("WATCHDOG", "1")])
    }

    /// A reload (SIGHUP) began. `MONOTONIC_USEC` lets systemd (253+, Type=notify-reload) match this
    /// message to the reload it requested; older managers ignore the extra field. Send `ready()` when
    /// the reload finished.
    @discardableResult
    public func reloading() -> Bool {
        send([("RELOADING", "1"), ("MONOTONIC_USEC", String(Self.monotonicMicroseconds()))])
    }

    /// Pings the watchdog now and then every `watchdogInterval` while `isAlive()` says the service
    /// still makes progress; returns at once when no watchdog is armed, else when the task is
    /// cancelled. A stalled service stops pinging, so systemd restarts it after `WatchdogSec=`.
    /// `pause` waits between pings (a test passes one it controls; the default sleeps).
    public func runWatchdog(isAlive: @escaping @Sendable () -> Bool = { true },
                            pause: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) })
        async {
        guard isEnabled, let interval = watchdogInterval else { return }
        while !Task.isCancelled {
            if isAlive() { watchdog() }
            do { try await pause(interval) } catch { return }
        }
    }

    /// Sends the fields as one datagram. Keys are trusted constants; values must hold no newline.
    @discardableResult
    func send(_ fields: [(String, String)]) -> Bool {
        guard let address else { return false }
        let message = fields.map { "\($0.0)=\($0.1)" }.joined(separator: "\n")
        let sent = Self.sendDatagram(Array(message.utf8), to: address)
        if !sent { drops.count.add(1, ordering: .relaxed) }
        return sent
    }

    // MARK: - Helpers

    /// Longest STATUS we send; systemd truncates status text anyway, and the datagram stays small.
    static let statusByteLimit = 1024

    /// A newline would start a new KEY=VALUE line (letting status text forge READY=1 or similar),
    /// so CR/LF become spaces; other control and bidi-override characters are dropped.
    static func sanitizedStatus(_ text: String) -> String {
        var result = String.UnicodeScalarView()
        var byteCount = 0
        for scalar in text.unicodeScalars {
            let replacement: Unicode.Scalar?
            switch HiddenCharacter.kind(scalar) {
            case .lineBreak?: replacement = " "
            case nil: replacement = scalar
            default: replacement = nil
            }
            guard let replacement else { continue }
            byteCount += UTF8.width(replacement)
            if byteCount > statusByteLimit { break }
            result.append(replacement)
        }
        return String(result)
    }

    /// systemd exports WATCHDOG_USEC (the full WatchdogSec) and WATCHDOG_PID (the process it is
    /// meant for; a forked child must not think the watchdog is its job). Ping at half the timeout,
    /// as sd_watchdog_enabled(3) recommends.
    static func watchdogInterval(environment: [String: String], processID: Int32) -> Duration? {
        guard let usecText = environment["WATCHDOG_USEC"], let usec = UInt64(usecText), usec > 0 else {
            return nil
        }
        if let pidText = environment["WATCHDOG_PID"] {
            guard let pid = Int32(pidText), pid > 0, pid == processID else { return nil }
        }
        return .microseconds(Int64(clamping: usec / 2))
    }

    static func monotonicMicroseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1_000
    }

    private static func sendDatagram(_ bytes: [UInt8], to address: NotifySocketAddress) -> Bool {
        let kind = Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        let fd = socket(AF_UNIX, kind, 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        let sent = address.withSockaddr { sockaddrPointer, length in
            bytes.withUnsafeBytes { buffer in
                sendto(fd, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT),
                       sockaddrPointer, length)
            }
        }
        return sent == bytes.count
    }
}

/// Shared by copies of the notifier (it is a value type handed to several tasks).
private final class DropCounter: Sendable {
    let count = Atomic<Int>(0)
}
