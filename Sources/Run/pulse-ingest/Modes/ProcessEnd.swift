import Threads
import FoundationEssentials
import Glibc

/// How the process ends once a mode has returned its status.
enum ProcessEnd {
    /// A parse abandoned at shutdown (`OffPool`) may still be running on a thread of its own, and
    /// `exit` runs the C libraries' destructors (libxml2's `xmlCleanupParser`, OpenSSL's cleanup)
    /// and C++ static destructors underneath it. So the process waits for those threads (parses
    /// are budgeted, so they end within about a second), flushes stdio, and leaves with `_exit`,
    /// which runs none of them: the modes have already closed everything they opened (database
    /// sessions, the curl loop, the metrics listener), so nothing is left for `atexit` to do.
    static func finish(_ status: Int32) -> Never {
        if !OffPool.waitForThreads(timeout: .seconds(5)) {
            writeToStandardError(
                "pulse-ingest: \(OffPool.runningThreads) abandoned parse thread(s) still running at exit\n")
        }
        now(status)
    }

    /// A second stop signal: out at once, in-flight work and all, and still without running the
    /// libraries' destructors under it.
    static func now(_ status: Int32) -> Never {
        fflush(nil)
        _exit(status)
    }
}
