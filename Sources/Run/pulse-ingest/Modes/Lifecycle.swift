import Ingestion
import Logging
import ServiceLifecycle
import Synchronization
import SystemdNotify
import UnixSignals

/// The process's one lifecycle (swift-service-lifecycle): a mode's services run in one
/// ServiceGroup, started together. The first SIGTERM or SIGINT shuts them down gracefully, one at
/// a time in reverse order of the list (so what others rely on comes first: the metrics endpoint
/// answers until the end); a service that ends or fails does the same. A second stop signal exits
/// at once with 130 (`SecondSignal`). No service is cancelled while it serves: cancelling a NIO
/// server while it accepts a connection traps the process (swift-nio#2637).
enum Lifecycle {
    /// Runs `services` until they have all stopped; rethrows the first failure.
    static func run(_ services: [any Service], announce: Bool, logger: Logger) async throws {
        let all: [any Service] = [SecondSignal(announce: announce, logger: logger)] + services
        let configuration = ServiceGroupConfiguration(
            services: all.map {
                .init(service: $0, successTerminationBehavior: .gracefullyShutdownGroup,
                      failureTerminationBehavior: .gracefullyShutdownGroup)
            },
            gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        try await ServiceGroup(configuration: configuration).run()
    }

    /// A one-shot mode's work (`--once`, `--backfill`): `body` gets a `StopSignal` that the first
    /// stop signal sets (announced on stderr); its status is the mode's.
    static func runOnce(logger: Logger, _ body: @escaping @Sendable (StopSignal) async -> Int32) async -> Int32 {
        let work = OneShot(body: body)
        // The group's own lines would only repeat the announcement.
        var quiet = logger
        quiet.logLevel = .critical
        do {
            try await run([work], announce: true, logger: quiet)
        } catch {
            // OneShot and SecondSignal never throw; keep the mode's status.
        }
        return work.status.withLock { $0 }
    }
}

/// A one-shot mode's work as a service: runs once, then ends the group.
private final class OneShot: Service {
    let body: @Sendable (StopSignal) async -> Int32
    let status = Mutex<Int32>(ExitStatus.success)

    init(body: @escaping @Sendable (StopSignal) async -> Int32) { self.body = body }

    func run() async {
        let stop = StopSignal()
        let result = await withGracefulShutdownHandler { await body(stop) } onGracefulShutdown: { stop.stop() }
        status.withLock { $0 = result }
    }
}

/// SIGINT/SIGTERM counted beside the group's own handling: the first is announced (one-shot modes
/// print on stderr what it does), a second exits at once with 130. Listed first, it is the last
/// service stopped, so it hears a second signal through the whole drain.
private struct SecondSignal: Service {
    let announce: Bool
    let logger: Logger

    func run() async {
        let signals = await UnixSignalsSequence(trapping: .sigterm, .sigint)
        await cancelWhenGracefulShutdown {
            var received = 0
            for await _ in signals {
                received += 1
                if received == 1 {
                    if announce {
                        writeToStandardError("pulse-ingest: stopping; finishing in-flight work (signal again to exit now)\n")
                    }
                    continue
                }
                if announce {
                    writeToStandardError("pulse-ingest: second signal, exiting now\n")
                } else {
                    logger.warning("second stop signal: exiting now")
                }
                ProcessEnd.now(130)
            }
        }
    }
}

/// The systemd watchdog pings as a service: while the daemon is alive, until the group stops.
struct WatchdogPings: Service {
    let notifier: SystemdNotifier
    let isAlive: @Sendable () -> Bool

    func run() async {
        await cancelWhenGracefulShutdown { [notifier, isAlive] in
            await notifier.runWatchdog(isAlive: isAlive)
            // No watchdog asked for: wait for the stop.
            try? await gracefulShutdown()
        }
    }
}
