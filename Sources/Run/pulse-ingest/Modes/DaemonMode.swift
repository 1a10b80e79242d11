import AddressPolicy
import ArticleStore
import FoundationEssentials
import Glibc
import HTTPServer
import HTTPFetcher
import Ingestion
import Logging
import Migrations
import Observability
import Postgres
import PulseConfig
import ServiceLifecycle
import SystemdNotify
import UnixSignals
import WebSub

/// The service (no mode flag): the watchdog, the metrics endpoint, WebSub, the reloader and the
/// ingest daemon, as the services of one group (`Lifecycle`). The daemon connects (retrying while
/// the database is down), migrates when PULSE_AUTO_MIGRATE=1, syncs sources, then claims and
/// ingests until SIGTERM/SIGINT. SIGHUP reloads `feeds.yaml`; a second stop signal exits at once.
struct DaemonMode {
    let context: RunContext
    let allowedNetworks: [CIDR]
    let metricsAddress: ListenAddress?

    func run() async -> Int32 {
        guard let conninfo = context.requiredDatabaseURL() else { return ExitStatus.usage }
        let logger = context.logger
        let configuration = context.configuration
        let workerID = "\(ProcessInfo.processInfo.hostName):\(getpid())"
        var settings = context.connectionSettings(conninfo)
        settings.reconnect.maximumAttempts = nil
        let connection = PostgresConnection(settings: settings, logger: logger)
        let metrics = PulseMetrics()
        let readiness = ReadinessTracker()
        let notifier = SystemdNotifier(environment: ProcessInfo.processInfo.environment)
        let systemd = SystemdObserver(notifier: notifier)
        let observer = ServiceObserver(logger: logger, metrics: metrics, readiness: readiness, extra: [systemd])
        // One more session for article inserts (see ArticleStore.insertLanes): measured on the
        // 2,000-feed farm, the single session was busy or waited on for most of the cycle.
        let store = ArticleStore(connection: connection, extraInsertConnections: 1, logger: logger)
        let fetcher = HTTPFetcher(configuration: configuration.fetcherConfiguration(
            environment: context.environment.fetch, allowedNetworks: allowedNetworks).countingRefusals(in: metrics),
                                  logger: logger)
        defer { fetcher.shutdown() }
        let subscriber = configuration.websub.enabled
            ? WebSubRuntime.subscriber(configuration, store: store, fetcher: fetcher, workerID: workerID, logger: logger) : nil
        let daemonSettings = Self.settings(configuration, fetcher: fetcher, subscriber: subscriber, workerID: workerID,
                                           logger: logger)
        let daemon = IngestDaemon(workerID: workerID, store: store, settings: daemonSettings, observer: observer,
                                  logger: logger)

        // Started together, stopped in reverse: the daemon drains first, the metrics endpoint
        // answers until the end (`Lifecycle`).
        var services: [any Service] = [WatchdogPings(notifier: notifier, isAlive: { systemd.isAlive() })]
        if let metricsAddress {
            services.append(MetricsServer(address: metricsAddress, metrics: metrics, logger: logger,
                                          readiness: { readiness.current() }))
        }
        if let subscriber, let websub = WebSubRuntime.make(configuration, store: store, pass: daemonSettings.makePass(store),
                                                           subscriber: subscriber, registry: metrics, logger: logger) {
            // Pushes go through the same pass as fetched feeds.
            services.append(websub)
        }
        services.append(Reloader(notifier: notifier) {
            await reload(daemon: daemon, store: store, fetcher: fetcher, subscriber: subscriber, workerID: workerID)
        })
        services.append(IngestService(mode: self, conninfo: conninfo, daemon: daemon, store: store))
        do {
            try await Lifecycle.run(services, announce: false, logger: logger)
            return ExitStatus.success
        } catch let error as ListenError {
            // The metrics endpoint's (WebSub's listener logs its own and goes on polling).
            context.fail("--metrics-address \(metricsAddress.map { "\($0)" } ?? error.address): \(error.reason)")
            return ExitStatus.usage
        } catch let failure as StartupFailure {
            context.fail(failure.message)
            return failure.status
        } catch {
            context.fail("\(error)")
            return ExitStatus.unavailable
        }
    }

    /// Connects (retrying while the database is down), migrates when PULSE_AUTO_MIGRATE=1 or
    /// refuses a schema behind this binary, syncs the sources, then runs the daemon until the
    /// group's graceful shutdown. A stop during start-up ends it at once.
    private struct IngestService: Service {
        let mode: DaemonMode
        let conninfo: String
        let daemon: IngestDaemon
        let store: ArticleStore

        func run() async throws {
            let context = mode.context, connection = store.connection
            let started: Bool
            do {
                started = try await cancelWhenGracefulShutdown {
                    try await connection.reconnect()
                    try await prepareDatabase()
                    return true
                }
            } catch where Task.isShuttingDownGracefully {
                started = false  // stopped while starting
            }
            if started {
                context.logger.info("serving", metadata: [
                    "worker": "\(daemon.workerID)", "sources": "\(context.configuration.activeSources.count)",
                ])
                try await daemon.run()
            }
            await store.closeInsertLanes()
            await connection.close()
        }

        /// Migrates or checks the schema, then syncs the sources. A transient failure (a statement
        /// or lock timeout on a busy database, a read-only or lost session, too many connections)
        /// is waited out with the daemon's backoff, not ready meanwhile: exiting only had systemd
        /// start us again into the same database. Anything else (a schema behind this binary, a
        /// permission missing) ends the start with its message.
        private func prepareDatabase() async throws {
            let context = mode.context
            var failures = 0
            while true {
                do {
                    if context.environment.autoMigrate {
                        try await mode.migrate(conninfo: conninfo)
                    } else {
                        let pending = try await Migrator(logger: context.logger).pending(on: store.connection)
                        if !pending.isEmpty {
                            throw StartupFailure(status: ExitStatus.unavailable, message:
                                "the database schema is behind this binary (pending migrations "
                                + pending.map { String($0.version) }.joined(separator: ", ")
                                + "): run `pulse-ingest --migrate` or set PULSE_AUTO_MIGRATE=1")
                        }
                    }
                    _ = try await store.synchronize(categories: context.configuration.categoryDefinitions,
                                                    sources: context.configuration.sourceDefinitions,
                                                    deactivateUnlisted: context.configuration.pruneUnlisted)
                    return
                } catch let error as PostgresError where error.isTransient {
                    failures += 1
                    let wait = min(30, 1 << min(failures, 5))
                    context.logger.warning("database not ready for start-up; retrying", metadata: [
                        "error": "\(error)", "attempt": "\(failures)", "retry_in_s": "\(wait)",
                    ])
                    try await Task.sleep(for: .seconds(wait))
                }
            }
        }
    }

    /// SIGHUP reloads the config (SIGTERM and SIGINT are the group's).
    private struct Reloader: Service {
        let notifier: SystemdNotifier
        let reload: @Sendable () async -> Void

        func run() async {
            let hangups = await UnixSignalsSequence(trapping: .sighup)
            await cancelWhenGracefulShutdown {
                for await _ in hangups {
                    notifier.reloading()
                    await reload()
                    notifier.ready(status: "configuration reloaded")
                }
            }
        }
    }

    private func reload(daemon: IngestDaemon, store: ArticleStore, fetcher: HTTPFetcher, subscriber: WebSubSubscriber?,
                        workerID: String) async {
        let logger = context.logger
        do {
            let configuration = try ConfigLoader.load(path: context.configPath, allowedNetworks: allowedNetworks)
            let sync = try await store.synchronize(categories: configuration.categoryDefinitions,
                                                   sources: configuration.sourceDefinitions,
                                                   deactivateUnlisted: configuration.pruneUnlisted)
            daemon.update(Self.settings(configuration, fetcher: fetcher, subscriber: subscriber, workerID: workerID,
                                        logger: logger))
            logger.info("configuration reloaded", metadata: [
                "file": "\(context.configPath)", "sync": "\(MigrateMode.describe(sync))",
            ])
        } catch {
            logger.error("configuration reload failed; keeping the old one", metadata: [
                "file": "\(context.configPath)", "error": "\(error)",
            ])
        }
    }

    func migrate(conninfo: String) async throws {
        var settings = ConnectionSettings(conninfo: conninfo, assumeServiceRole: false)
        settings.statementTimeoutMilliseconds = 0
        let admin = try await PostgresConnection.connect(settings: settings, logger: context.logger)
        _ = try await Migrator(logger: context.logger).migrate(on: admin)
        await admin.close()
    }

    /// `subscriber` (WebSub on at start) takes the passes' hub discoveries.
    static func settings(_ configuration: PulseConfiguration, fetcher: HTTPFetcher, subscriber: WebSubSubscriber?,
                         workerID: String, logger: Logger) -> DaemonSettings {
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
            if configuration.websub.enabled, let subscriber {
                pass.enableWebSub(configuration, subscriber: subscriber)
            }
            return pass
        }
    }
}

/// Why the service could not start, and its exit status.
struct StartupFailure: Error {
    let status: Int32
    let message: String
}
