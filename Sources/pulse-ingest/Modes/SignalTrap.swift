import Dispatch
import Foundation
import Ingestion

/// SIGINT/SIGTERM: the first asks the run to stop cleanly (`StopSignal`), a second exits at once.
final class SignalTrap {
    let stop = StopSignal()
    private let sources: [DispatchSourceSignal]

    init(signals: [Int32] = [SIGINT, SIGTERM]) {
        let stop = self.stop
        sources = signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                if stop.isStopped {
                    FileHandle.standardError.write(Data("pulse-ingest: second signal, exiting now\n".utf8))
                    exit(130)
                }
                FileHandle.standardError.write(Data("pulse-ingest: stopping; finishing in-flight work (signal again to exit now)\n".utf8))
                stop.stop()
            }
            source.resume()
            return source
        }
    }

    deinit { for source in sources { source.cancel() } }
}
