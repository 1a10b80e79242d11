import Foundation
import Testing
import Threads

/// The pthread wrappers that replaced Foundation's `Thread` and `NSCondition` in the service.
/// No test here depends on how long anything takes: waits end on a signal, and the one timed wait
/// has nobody to signal it.
@Suite struct ThreadsTests {
    /// A flag set under the condition's lock and waited for with `wait()`: ends only when set.
    final class Flag: @unchecked Sendable {
        let condition = Condition()
        var value: String?
        func set(_ text: String) {
            condition.lock()
            value = text
            condition.broadcast()
            condition.unlock()
        }
        func waitForValue() -> String {
            condition.lock()
            defer { condition.unlock() }
            while value == nil { condition.wait() }
            return value!
        }
    }

    @Test func aDetachedThreadRunsItsBodyUnderItsNameCutTo15Bytes() {
        let flag = Flag()
        DetachedThread.start(name: "pulse-threads-test-name", stackSize: 1 << 20) {
            let comm = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "unreadable"
            flag.set(comm.trimmingCharacters(in: .newlines))
        }
        #expect(flag.waitForValue() == "pulse-threads-t")
    }

    @Test func aTimedWaitNobodySignalsEndsAtItsDeadline() {
        let condition = Condition()
        condition.lock()
        defer { condition.unlock() }
        #expect(condition.wait(until: .after(.milliseconds(5))) == false)
        #expect(condition.wait(until: .after(.seconds(-1))) == false)  // already past
    }

    @Test func aSignalEndsATimedWaitWithAFarDeadline() {
        let condition = Condition()
        final class Box: @unchecked Sendable { var done = false }
        let box = Box()
        condition.lock()
        // The thread cannot take the lock (and signal) before this thread waits on it.
        DetachedThread.start(name: "pulse-signal") {
            condition.lock()
            box.done = true
            condition.signal()
            condition.unlock()
        }
        var woken = true
        while !box.done {
            woken = condition.wait(until: .after(.seconds(Int64.max)))  // a huge timeout must not wrap into the past
            if !woken { break }
        }
        condition.unlock()
        #expect(woken && box.done)
    }
}
