import Foundation
import Threads

/// A serial executor that runs every job on one OS thread of its own.
///
/// libpq calls block (network round trips, server-side work). Running them on Swift's cooperative
/// pool would stall unrelated tasks, and the pool has only as many threads as cores (two here). We
/// chose a dedicated thread per connection over libpq's non-blocking API because it keeps every
/// call site a plain, readable synchronous libpq call, a connection is used by one logical task at a
/// time anyway, and a daemon holds only a handful of connections.
final class DedicatedThreadExecutor: SerialExecutor, @unchecked Sendable {
    // @unchecked: `jobs` and `stopped` are only touched while `condition` is locked.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var stopped = false

    init(name: String) {
        DetachedThread.start(name: name) { [self] in self.runLoop() }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        condition.lock()
        jobs.append(unowned)
        condition.signal()
        condition.unlock()
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Lets the thread exit once the queued jobs have run.
    func shutdown() {
        condition.lock()
        stopped = true
        condition.signal()
        condition.unlock()
    }

    private func runLoop() {
        while true {
            condition.lock()
            while jobs.isEmpty && !stopped { condition.wait() }
            if jobs.isEmpty && stopped {
                condition.unlock()
                return
            }
            let batch = jobs
            jobs.removeAll(keepingCapacity: true)
            condition.unlock()
            for job in batch { job.runSynchronously(on: asUnownedSerialExecutor()) }
        }
    }
}
