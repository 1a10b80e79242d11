import ArticleStore
import HTTPFetcher
import Ingestion
import Logging
import Observability
import PulseConfig
import WebSub

/// The service's WebSub side when `websub.enabled`: the subscriber (one daemon at a time sends a
/// given request, through claims), the listener and the push receiver. Every daemon runs all
/// three, so any of them can answer the hub.
struct WebSubRuntime {
    let subscriber: WebSubSubscriber
    let receiver: PushReceiver
    let listener: WebSubListener
    let metrics: WebSubMetrics
    let logger: Logger

    static func subscriberSettings(_ websub: WebSubSettings) -> WebSubSubscriber.Settings {
        var settings = WebSubSubscriber.Settings(callbackPrefix: websub.callbackURL, leaseSeconds: websub.leaseSeconds)
        settings.allowHTTPHubs = websub.allowHTTPHubs
        return settings
    }

    /// Nil when WebSub is off. `pass` is the service's pass (its parse, insert and enrichment).
    static func make(_ configuration: PulseConfiguration, store: ArticleStore, fetcher: HTTPFetcher, pass: IngestPass,
                     workerID: String, registry: PulseMetrics, logger: Logger) -> WebSubRuntime? {
        let websub = configuration.websub
        guard websub.enabled else { return nil }
        let metrics = WebSubMetrics(registry: registry.registry)
        var events = WebSubEvents()
        events.pushReceived = { metrics.pushReceived() }
        events.pushRejected = { metrics.pushRejected(reason: $0) }
        events.pushStored = { metrics.pushStored(inserted: $0, latency: $1) }
        events.verification = { metrics.verification(mode: $0, accepted: $1) }
        let receiver = PushReceiver(pass: pass, events: events, workers: 4, logger: logger)
        let settings = subscriberSettings(websub)
        let subscriber = WebSubSubscriber(store: store, fetcher: fetcher, settings: settings, workerID: workerID, logger: logger)
        let listener = WebSubListener(host: websub.listenHost, port: websub.listenPort,
                                      limits: .init(maxBodyBytes: configuration.fetch.feedBodyLimitBytes), store: store,
                                      receiver: receiver, subscriber: settings, logger: logger)
        return WebSubRuntime(subscriber: subscriber, receiver: receiver, listener: listener, metrics: metrics, logger: logger)
    }

    /// Runs listener, receiver and subscriber until cancelled; queued pushes are stored first.
    /// Every subscribed source is polled within 30 s of the start first: pushes acknowledged
    /// before a crash may never have been stored, and the feed still lists their items.
    /// `onListening` is called once the listener is bound (or could not be): the daemon starts
    /// claiming only then, so a hub that verifies intent at once finds the callback answering.
    func run(onListening: @escaping @Sendable () -> Void = {}) async throws {
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
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { [listener] in
                defer { onListening() }
                try await listener.run { port in
                    logger.info("websub listener serving", metadata: ["port": "\(port)"])
                    onListening()
                }
            }
            group.addTask { [receiver] in await receiver.run() }
            group.addTask { [subscriber, metrics] in
                while !Task.isCancelled {
                    do {
                        try await subscriber.runDue()
                        metrics.setSubscriptions(try await subscriber.store.webSubStateCounts())
                    } catch {
                        logger.warning("websub subscriber could not read its work", metadata: ["error": "\(error)"])
                    }
                    try? await Task.sleep(for: subscriber.settings.tick)
                }
            }
            defer { receiver.finish() }
            try await group.next()
            group.cancelAll()
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
