import ArticleStore
import HTTPFetcher
import Ingestion
import Logging
import Observability
import PulseConfig
import ServiceLifecycle
import WebSub

/// The service's WebSub side when `websub.enabled`, one `Service` of the process's group: the
/// subscriber (one daemon at a time sends a given request, through claims), the listener and the
/// push receiver. Every daemon runs all three, so any of them can answer the hub.
struct WebSubRuntime: Service {
    let subscriber: WebSubSubscriber
    let receiver: PushReceiver
    let listener: WebSubListener
    let metrics: WebSubMetrics
    let logger: Logger
    /// Set once the callback is bound (or could not be); the subscriber waits for it.
    let listening: StopSignal

    static func subscriberSettings(_ websub: WebSubSettings) -> WebSubSubscriber.Settings {
        var settings = WebSubSubscriber.Settings(callbackPrefix: websub.callbackURL, leaseSeconds: websub.leaseSeconds)
        settings.allowHTTPHubs = websub.allowHTTPHubs
        return settings
    }

    /// Nil when WebSub is off. `pass` is the service's pass (its parse, insert and enrichment);
    /// `subscriber` the one its discoveries go to.
    static func make(_ configuration: PulseConfiguration, store: ArticleStore, pass: IngestPass,
                     subscriber: WebSubSubscriber, registry: PulseMetrics, logger: Logger) -> WebSubRuntime? {
        let websub = configuration.websub
        guard websub.enabled else { return nil }
        let metrics = WebSubMetrics(registry: registry.registry)
        var events = WebSubEvents()
        events.pushReceived = { metrics.pushReceived() }
        events.pushRejected = { metrics.pushRejected(reason: $0) }
        events.pushStored = { metrics.pushStored(inserted: $0, latency: $1) }
        events.verification = { metrics.verification(mode: $0, accepted: $1) }
        let receiver = PushReceiver(pass: pass, events: events, workers: 4, logger: logger)
        let listener = WebSubListener(host: websub.listenHost, port: websub.listenPort,
                                      limits: .init(maxBodyBytes: configuration.fetch.feedBodyLimitBytes), store: store,
                                      receiver: receiver, subscriber: subscriber.settings, logger: logger)
        return WebSubRuntime(subscriber: subscriber, receiver: receiver, listener: listener, metrics: metrics,
                             logger: logger, listening: subscriber.callbackListening)
    }

    /// The subscriber for the service's passes: it sends nothing before the callback listens.
    static func subscriber(_ configuration: PulseConfiguration, store: ArticleStore, fetcher: HTTPFetcher,
                           workerID: String, logger: Logger) -> WebSubSubscriber {
        WebSubSubscriber(store: store, fetcher: fetcher, settings: subscriberSettings(configuration.websub),
                         workerID: workerID, logger: logger, callbackListening: StopSignal())
    }

    /// Runs listener, receiver and subscriber until the group's graceful shutdown; queued pushes
    /// are stored first. Every subscribed source is polled within 30 s of the start first: pushes
    /// acknowledged before a crash may never have been stored, and the feed still lists their items.
    /// A listener that cannot bind is logged and the service goes on polling.
    func run() async throws {
        let logger = self.logger
        if subscriber.settings.allowHTTPHubs {
            logger.warning("websub.allow_http_hubs is on: secrets are sent to http:// hubs in clear text, and anyone on the path can forge pushes")
        }
        do {
            let moved = try await subscriber.store.pollSubscribedSourcesSoon(spread: .seconds(30))
            if moved > 0 { logger.info("subscribed sources polled within 30 s of the start", metadata: ["sources": "\(moved)"]) }
        } catch {
            logger.warning("could not schedule the subscribed sources' first polls", metadata: ["error": "\(error)"])
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [listener, listening] in
                defer { listening.stop() }
                do {
                    try await listener.service { port in
                        logger.info("websub listener serving", metadata: ["port": "\(port)"])
                        listening.stop()
                    }.run()
                } catch {
                    logger.error("websub stopped; sources are polled only", metadata: ["error": "\(error)"])
                }
            }
            group.addTask { [receiver] in
                await withGracefulShutdownHandler { await receiver.run() } onGracefulShutdown: { receiver.finish() }
            }
            group.addTask { [subscriber, metrics] in
                await subscriber.run { metrics.setSubscriptions(try await subscriber.store.webSubStateCounts()) }
            }
        }
    }
}

extension IngestPass {
    /// The pass with WebSub's hooks: discovery after each fetch, relaxed polling while subscribed.
    mutating func enableWebSub(_ configuration: PulseConfiguration, subscriber: WebSubSubscriber) {
        hubObserver = { source, discovery in await subscriber.observe(source, discovery) }
        subscribedPollInterval = .seconds(configuration.websub.subscribedPollHours(schedule: configuration.schedule) * 3600)
    }
}
