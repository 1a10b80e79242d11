import Dispatch
import FoundationEssentials
import Glibc
import Ingestion
import Synchronization

/// SIGINT/SIGTERM: the first asks the run to stop cleanly (`StopSignal`), a second exits at once
/// with 130. Signals are counted with the dispatch source's `data`: two that the process receives
/// before the handler has run reach it as one event, and both count. (Two sent so close together
/// that the kernel merges them while pending are one signal; nothing can tell them apart.)
final class SignalTrap: @unchecked Sendable {
    // @unchecked: `sources` is set once in init and only cancelled in deinit; the count is atomic.
    let stop = StopSignal()
    private let received = Atomic<Int>(0)
    private let sources: [DispatchSourceSignal]

    /// `announce` prints the first signal's effect on stderr (the one-shot modes); the service
    /// leaves its first signal to ServiceGroup's graceful shutdown, which logs it, and only
    /// traps a second one (`onSecond` logs it before the exit).
    init(signals: [Int32] = [SIGINT, SIGTERM], announce: Bool = true, onSecond: @escaping @Sendable () -> Void = {}) {
        sources = signals.map { number in
            // Only where no other signal source exists yet: on Linux, dispatch installs its own
            // handler when the first source for a signal is registered, and SIG_IGN set after that
            // would silence every source. The service's ServiceGroup relies on the default.
            if announce { signal(number, SIG_IGN) }
            return DispatchSource.makeSignalSource(signal: number, queue: .global())
        }
        for source in sources {
            // The handler holds its source until `deinit` cancels it, which releases the handler.
            source.setEventHandler { [weak self, source] in
                guard let self else { return }
                let total = self.received.add(Int(source.data), ordering: .relaxed).newValue
                if total >= 2 {
                    if announce { writeToStandardError("pulse-ingest: second signal, exiting now\n") }
                    onSecond()
                    ProcessEnd.now(130)
                }
                if announce {
                    writeToStandardError("pulse-ingest: stopping; finishing in-flight work (signal again to exit now)\n")
                }
                self.stop.stop()
            }
            source.resume()
        }
    }

    deinit { for source in sources { source.cancel() } }
}
