import Dispatch
import CCurl
import FoundationEssentials
import Glibc
import Synchronization
import Threads

/// Drives every transfer through one libcurl multi handle on one dedicated thread. Async callers
/// hand in a hop and suspend on a continuation; the loop thread starts it when politeness allows,
/// runs `curl_multi_perform`/`curl_multi_poll`, and resumes the continuation with the outcome.
final class CurlMulti: Sendable {
    private let inbox: Inbox
    private let stopped = DispatchSemaphore(value: 0)
    private let nextID = Atomic<UInt64>(1)

    private static let globalInit: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    init?(configuration: FetcherConfiguration) {
        guard CurlMulti.globalInit, let raw = curl_multi_init() else { return nil }
        let multi = MultiHandle(raw: raw)
        // libcurl's own connection limits mirror the loop's, so pooled connections obey them too.
        _ = pulse_curl_multi_setopt_long(raw, CURLMOPT_MAX_HOST_CONNECTIONS, max(1, configuration.perHostConnections))
        _ = pulse_curl_multi_setopt_long(raw, CURLMOPT_MAX_TOTAL_CONNECTIONS, max(1, configuration.globalConcurrency))
        let inbox = Inbox(multi: multi)
        self.inbox = inbox
        let stopped = self.stopped
        let limits = (configuration.globalConcurrency, configuration.perHostConnections, configuration.perHostRequestsPerSecond)
        DetachedThread.start(name: "pulse-fetch-curl") {
            var loop = EventLoop(
                multi: multi, inbox: inbox, globalConcurrency: limits.0,
                limiter: HostLimiter(perHostConnections: limits.1, requestsPerSecond: limits.2))
            loop.run()
            stopped.signal()
        }
    }

    deinit { shutdown() }

    /// Runs one hop; never throws, cancellation included, so typed errors stay in one place.
    func run(_ spec: HopSpec) async -> Result<HopResult, FetchError> {
        let id = nextID.add(1, ordering: .relaxed).oldValue
        let inbox = self.inbox
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: HopContinuation) in
                if Task.isCancelled {
                    continuation.resume(returning: .failure(.cancelled))
                } else if !inbox.post({ $0.submissions.append(Pending(id: id, spec: spec, continuation: continuation)) }) {
                    continuation.resume(returning: .failure(.cancelled))
                }
            }
        } onCancel: {
            _ = inbox.post { $0.cancels.append(id) }
        }
    }

    /// Stops the loop: queued and running hops finish with `.cancelled`. Waits for the loop thread
    /// to release libcurl when this call is the one that stopped it.
    func shutdown() {
        if inbox.post({ $0.stopping = true }) {
            stopped.wait()
        }
    }
}

/// A hop waiting for its turn.
struct Pending: Sendable {
    let id: UInt64
    let spec: HopSpec
    let continuation: HopContinuation
}

/// libcurl documents `curl_multi_wakeup` as callable from any thread; the pointer is otherwise only
/// used by the loop thread, and `Inbox` guarantees no wakeup after the handle is cleaned up.
struct MultiHandle: @unchecked Sendable {
    let raw: UnsafeMutableRawPointer
}

/// The only state shared between async callers and the loop thread.
final class Inbox: Sendable {
    struct State {
        var submissions: [Pending] = []
        var cancels: [UInt64] = []
        var stopping = false
        var closed = false
    }

    let state = Mutex(State())
    let multi: MultiHandle

    init(multi: MultiHandle) { self.multi = multi }

    /// Applies `change` and wakes the loop; false (and nothing applied) once the loop is stopping.
    func post(_ change: (inout State) -> Void) -> Bool {
        state.withLock { state in
            guard !state.closed, !state.stopping else { return false }
            change(&state)
            _ = curl_multi_wakeup(multi.raw)
            return true
        }
    }

    func take() -> (submissions: [Pending], cancels: [UInt64], stopping: Bool) {
        state.withLock { state in
            defer { state.submissions = []; state.cancels = [] }
            return (state.submissions, state.cancels, state.stopping)
        }
    }

    func close() { state.withLock { $0.closed = true } }
}

/// The loop thread's private state.
private struct EventLoop {
    let multi: MultiHandle
    let inbox: Inbox
    let globalConcurrency: Int
    var limiter: HostLimiter
    var waiting: [Pending] = []
    var active: [UnsafeMutableRawPointer: Transfer] = [:]
    var activeByID: [UInt64: UnsafeMutableRawPointer] = [:]
    let clock = ContinuousClock()

    init(multi: MultiHandle, inbox: Inbox, globalConcurrency: Int, limiter: HostLimiter) {
        self.multi = multi
        self.inbox = inbox
        self.globalConcurrency = max(1, globalConcurrency)
        self.limiter = limiter
    }

    mutating func run() {
        while true {
            let (submissions, cancels, stopping) = inbox.take()
            waiting.append(contentsOf: submissions)
            if stopping { break }
            for id in cancels { cancel(id) }
            startEligible()
            var running: Int32 = 0
            _ = curl_multi_perform(multi.raw, &running)
            collectFinished()
            startEligible()
            _ = curl_multi_poll(multi.raw, nil, 0, pollTimeoutMilliseconds(), nil)
        }
        tearDown()
    }

    private mutating func startEligible() {
        let now = clock.now
        var index = 0
        while index < waiting.count, active.count < globalConcurrency {
            let pending = waiting[index]
            if let earliest = limiter.earliestStart(for: pending.spec.target.host, now: now), earliest <= now {
                waiting.remove(at: index)
                start(pending, now: now)
            } else {
                index += 1
            }
        }
    }

    private mutating func start(_ pending: Pending, now: ContinuousClock.Instant) {
        guard let transfer = Transfer(id: pending.id, spec: pending.spec, continuation: pending.continuation),
              transfer.configure(),
              curl_multi_add_handle(multi.raw, transfer.easy) == CURLM_OK
        else {
            pending.continuation.resume(returning: .failure(.other(code: -1, message: "could not set up the transfer")))
            return
        }
        limiter.started(pending.spec.target.host, at: now)
        active[transfer.easy] = transfer
        activeByID[transfer.id] = transfer.easy
    }

    private mutating func collectFinished() {
        var left: Int32 = 0
        while let message = curl_multi_info_read(multi.raw, &left) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
                  let transfer = active[easy]
            else { continue }
            let outcome = transfer.outcome(message.pointee.data.result)
            finish(transfer, outcome)
        }
    }

    private mutating func cancel(_ id: UInt64) {
        if let index = waiting.firstIndex(where: { $0.id == id }) {
            waiting.remove(at: index).continuation.resume(returning: .failure(.cancelled))
        } else if let easy = activeByID[id], let transfer = active[easy] {
            finish(transfer, .failure(.cancelled))
        }
        // Otherwise the hop already finished; the cancellation came too late to matter.
    }

    private mutating func finish(_ transfer: Transfer, _ outcome: Result<HopResult, FetchError>) {
        // The caller first: removing the handle may still take a moment (closing its connection).
        transfer.continuation.resume(returning: outcome)
        _ = curl_multi_remove_handle(multi.raw, transfer.easy)
        active[transfer.easy] = nil
        activeByID[transfer.id] = nil
        limiter.finished(transfer.spec.target.host, now: clock.now)
    }

    /// Sleep until libcurl has work (it shortens this to its own timers), a wakeup, or the next
    /// rate-limited host becomes eligible.
    private func pollTimeoutMilliseconds() -> Int32 {
        let ceiling: Int32 = 1000
        guard !waiting.isEmpty, active.count < globalConcurrency else { return ceiling }
        let now = clock.now
        var soonest: ContinuousClock.Instant?
        for pending in waiting {
            if let earliest = limiter.earliestStart(for: pending.spec.target.host, now: now) {
                soonest = soonest.map { min($0, earliest) } ?? earliest
            }
        }
        guard let soonest else { return ceiling }
        let wait = Transfer.milliseconds(soonest - now)
        return Int32(min(Int(ceiling), max(1, wait)))
    }

    private mutating func tearDown() {
        inbox.close()
        for pending in waiting { pending.continuation.resume(returning: .failure(.cancelled)) }
        waiting = []
        for transfer in Array(active.values) { finish(transfer, .failure(.cancelled)) }
        for pending in inbox.take().submissions { pending.continuation.resume(returning: .failure(.cancelled)) }
        curl_multi_cleanup(multi.raw)
    }
}
