import AddressPolicy
import ArticleStore
import Daemon
import FoundationEssentials
import Glibc
import HTTPFetcher
import Ingestion
import Logging
import Migrations
import Observability
import Postgres
import PulseConfig
import Scheduler
import ServiceLifecycle
import SystemdNotify
import UnixSignals
import WebSub

/// The service (no mode flag): connect (retrying while the database is down), migrate when
/// PULSE_AUTO_MIGRATE=1, sync sources, then claim and ingest until SIGTERM/SIGINT. SIGHUP reloads
/// `feeds.yaml`; a second stop signal exits at once.
struct DaemonMode {
    let context: RunContext
    let allowedNetworks: [CIDR]
    let metricsAddress: ListenAddress?

    func run() async -> Int32 {
        guard let conninfo = context.requiredDatabaseURL() else { return ExitStatus.usage }
        let logger = context.logger
        let workerID = "\(ProcessInfo.processInfo.hostName):\(getpid())"
        var settings = context.connectionSettings(conninfo)
        settings.reconnect.maximumAttempts = nil
        let connection = PostgresConnection(settings: settings, logger: logger)
        let metrics = PulseMetrics()
        let readiness = ReadinessTracker()
        let notifier = SystemdNotifier(environment: ProcessInfo.processInfo.environment)
        let systemd = SystemdObserver(notifier: notifier)
        let observer = ServiceObserver(logger: logger, metrics: metrics, readiness: readiness, extra: [systemd])
        let watchdog = Task { await notifier.runWatchdog(isAlive: { systemd.isAlive() }) }
        defer { watchdog.cancel() }
        var metricsServer: MetricsServer.Running?
        if let metricsAddress {
            do {
                metricsServer = try await MetricsServer(address: metricsAddress, metrics: metrics, logger: logger,
                                                        readiness: { readiness.current() }).start()
            } catch {
                context.fail("--metrics-address \(metricsAddress): \(error)")
                return ExitStatus.usage
            }
        }
        // Until stopped; the metrics endpoint answers throughout, and closes last.
        let status = await { () async -> Int32 in
            do {
                try await connection.reconnect()
                if context.environment.autoMigrate {
                    try await migrate(conninfo: conninfo)
                } else {
                    let pending = try await Migrator(logger: logger).pending(on: connection)
                    if !pending.isEmpty {
                        context.fail("the database schema is behind this binary (pending migrations "
                            + pending.map { String($0.version) }.joined(separator: ", ")
                            + "): run `pulse-ingest --migrate` or set PULSE_AUTO_MIGRATE=1")
                        return ExitStatus.unavailable
                    }
                }
                // One more session for article inserts (see ArticleStore.insertLanes): measured on the
                // 2,000-feed farm, the single session was busy or waited on for most of the cycle.
                let store = ArticleStore(connection: connection, extraInsertConnections: 1, logger: logger)
                _ = try await store.synchronize(categories: context.configuration.categoryDefinitions,
                                                sources: context.configuration.sourceDefinitions,
                                                deactivateUnlisted: context.configuration.pruneUnlisted)
                let fetcher = HTTPFetcher(configuration: context.configuration.fetcherConfiguration(
                    environment: context.environment.fetch, allowedNetworks: allowedNetworks).countingRefusals(in: metrics),
                                          logger: logger)
                defer { fetcher.shutdown() }
                let daemonSettings = Self.settings(context.configuration, fetcher: fetcher, workerID: workerID, logger: logger)
                let daemon = IngestDaemon(workerID: workerID, store: store, settings: daemonSettings,
                                          observer: observer, logger: logger)
                // WebSub (when enabled): pushes go through the same pass as fetched feeds.
                let websub = WebSubRuntime.make(context.configuration, store: store, fetcher: fetcher,
                                                pass: daemonSettings.makePass(store), workerID: workerID,
                                                registry: metrics, logger: logger)
                logger.info("serving", metadata: ["worker": "\(workerID)", "sources": "\(context.configuration.activeSources.count)"])
                let group = ServiceGroup(configuration: .init(
                    services: [daemon], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
                // The first stop signal drains (ServiceGroup); a second exits at once (`SignalTrap`).
                let secondSignal = SignalTrap(announce: false, onSecond: { logger.warning("second stop signal: exiting now") })
                defer { withExtendedLifetime(secondSignal) {} }
                // With WebSub on, the daemon (whose passes subscribe to the hubs they discover) starts
                // once the callback listener is bound: a hub verifies intent right after a request.
                let (listening, listeningDone) = AsyncStream<Void>.makeStream()
                if websub == nil { listeningDone.finish() }
                try await withThrowingTaskGroup(of: Void.self) { tasks in
                    tasks.addTask {
                        for await _ in listening {}
                        try await group.run()
                    }
                    if let websub {
                        tasks.addTask {
                            do { try await websub.run(onListening: { listeningDone.finish() }) } catch {
                                // The listener could not bind: the service goes on polling, loudly.
                                logger.error("websub stopped; sources are polled only", metadata: ["error": "\(error)"])
                                while !Task.isCancelled { try await Task.sleep(for: .seconds(3600)) }
                            }
                        }
                    }
                    tasks.addTask {
                        await watchSignals(daemon: daemon, store: store, fetcher: fetcher, workerID: workerID,
                                           notifier: notifier)
                    }
                    try await tasks.next()
                    tasks.cancelAll()
                }
                await store.closeInsertLanes()
                await connection.close()
                return ExitStatus.success
            } catch {
                context.fail("\(error)")
                return ExitStatus.unavailable
            }
        }()
        await metricsServer?.stop()
        return status
    }

    /// SIGHUP reloads the config (SIGTERM/SIGINT are ServiceGroup's, and a second one `SignalTrap`'s).
    private func watchSignals(daemon: IngestDaemon, store: ArticleStore, fetcher: HTTPFetcher, workerID: String,
                              notifier: SystemdNotifier) async {
        for await _ in await UnixSignalsSequence(trapping: .sighup) {
            notifier.reloading()
            await reload(daemon: daemon, store: store, fetcher: fetcher, workerID: workerID)
            notifier.ready(status: "configuration reloaded")
        }
    }

    private func reload(daemon: IngestDaemon, store: ArticleStore, fetcher: HTTPFetcher, workerID: String) async {
        let logger = context.logger
        do {
            let configuration = try ConfigLoader.load(path: context.configPath, allowedNetworks: allowedNetworks)
            let sync = try await store.synchronize(categories: configuration.categoryDefinitions,
                                                   sources: configuration.sourceDefinitions,
                                                   deactivateUnlisted: configuration.pruneUnlisted)
            daemon.update(Self.settings(configuration, fetcher: fetcher, workerID: workerID, logger: logger))
            logger.info("configuration reloaded", metadata: [
                "file": "\(context.configPath)", "sync": "\(MigrateMode.describe(sync))",
            ])
        } catch {
            logger.error("configuration reload failed; keeping the old one", metadata: [
                "file": "\(context.configPath)", "error": "\(error)",
            ])
        }
    }

    private func migrate(conninfo: String) async throws {
        var settings = ConnectionSettings(conninfo: conninfo, assumeServiceRole: false)
        settings.statementTimeoutMilliseconds = 0
        let admin = try await PostgresConnection.connect(settings: settings, logger: context.logger)
        _ = try await Migrator(logger: context.logger).migrate(on: admin)
        await admin.close()
    }

    static func settings(_ configuration: PulseConfiguration, fetcher: HTTPFetcher, workerID: String,
                         logger: Logger) -> DaemonSettings {
        let policy = SchedulePolicy(minimumInterval: .seconds(configuration.schedule.minIntervalMinutes * 60),
                                    maximumInterval: .seconds(configuration.schedule.maxIntervalHours * 3600))
        let parserOptions = configuration.parserOptions
        let retentionDays = configuration.retention.articlesDays
        let concurrency = configuration.fetch.maxConcurrentFetches
        let bodyLimit = configuration.fetch.feedBodyLimitBytes
        let detectionOff = configuration.languageDetectionOff
        let enricher = configuration.enrichment.enabled ? configuration.enricher(fetcher: fetcher, logger: logger) : nil
        // Batches of half the fetch concurrency, claimed as single sources finish, with at most
        // twice the concurrency leased at once: the fetcher stays busy while stalled feeds wait.
        return DaemonSettings(claimBatch: max(concurrency / 2, 4), sourcesInFlight: max(concurrency * 2, 8),
                              databaseRetryDelay: .seconds(configuration.schedule.databaseRetrySeconds)) { store in
            var pass = IngestPass(store: store, fetcher: fetcher, parserOptions: parserOptions,
                                  retentionDays: retentionDays, concurrency: concurrency,
                                  drainDeadline: .seconds(20), logger: logger)
            pass.feedBodyLimit = bodyLimit
            pass.languageDetectionOff = detectionOff
            pass.enricher = enricher
            pass.scheduling = PassScheduling(workerID: workerID, policy: policy)
            if configuration.websub.enabled {
                pass.enableWebSub(configuration, subscriber: WebSubSubscriber(
                    store: store, fetcher: fetcher, settings: WebSubRuntime.subscriberSettings(configuration.websub),
                    workerID: workerID, logger: logger))
            }
            return pass
        }
    }
}

