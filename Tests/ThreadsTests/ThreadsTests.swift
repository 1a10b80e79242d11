import Foundation
import Testing
import Threads

/// Detached threads carry their names to the OS. No test here depends on how long anything
/// takes: waits end on a signal.
@Suite struct ThreadsTests {
    /// A flag set under the condition's lock and waited for with `wait()`: ends only when set.
    final class Flag: @unchecked Sendable {
        let condition = NSCondition()
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
}
