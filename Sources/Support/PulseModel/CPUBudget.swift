import Glibc

/// A CPU budget for one parse or extraction (feeds, pages), measured on this thread's CPU clock
/// (not wall time, so a busy machine does not fail parses that are merely slow to be scheduled).
/// Reading the thread CPU clock is a system call, so the cheap monotonic (vDSO) clock is read
/// first: CPU time can not exceed elapsed wall time, so while less than the budget has elapsed
/// nothing else is asked.
public struct CPUBudget: Sendable {
    public let seconds: Double
    let wallStart: Double
    let cpuStart: Double

    public init(seconds: Double) {
        self.seconds = max(0, seconds)
        wallStart = CPUBudget.clock(CLOCK_MONOTONIC)
        cpuStart = CPUBudget.clock(CLOCK_THREAD_CPUTIME_ID)
    }

    public static func clock(_ id: clockid_t) -> Double {
        var ts = timespec()
        clock_gettime(id, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    public func exceeded() -> Bool {
        if CPUBudget.clock(CLOCK_MONOTONIC) - wallStart < seconds { return false }
        return CPUBudget.clock(CLOCK_THREAD_CPUTIME_ID) - cpuStart >= seconds
    }
}
