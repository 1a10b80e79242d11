import TestSupport
import ArticleStore
import Foundation
@testable import HTTPFetcher
import Ingestion
import Logging
import Synchronization
import WebSub

/// One "daemon" of the WebSub tests: its own database session, a listener on an ephemeral
/// loopback port, a push receiver and a subscriber, all on the test's database.
final class WebSubDaemon: Sendable {
    let store: ArticleStore
    let fetcher: HTTPFetcher
    let pass: IngestPass
    let receiver: PushReceiver
    let subscriber: WebSubSubscriber
    let port: Int
    let rejected: Locked<[String]>
    private let listening: RunningService
    private let receiverTask: Task<Void, Never>
    private let startReceiver: AsyncStream<Void>.Continuation

    var callbackPrefix: String { "http://127.0.0.1:\(port)/websub" }
    /// `{prefix}/{slug}`: the hub's `subscription(for:)` finds the tokened callback under it.
    func callback(_ slug: String) -> String { callbackPrefix + "/" + slug }

    /// `hubHost` is pinned to 127.0.0.1 as `PULSE_RESOLVE` would pin it, so hub URLs look public.
    /// `receiving: false` leaves the push queue undrained until `startReceiving()`.
    init(database: TestDatabase, hubHost: String, hubPort: Int, maxBodyBytes: Int = 1 << 20,
         workerID: String = "daemon-a", limits: ((inout WebSubListener.Limits) -> Void)? = nil,
         queueLimit: Int = 1000, budgetBytes: Int = PushReceiver.defaultBudgetBytes, receiving: Bool = true,
         allowHTTPHubs: Bool = true) async throws {
        let store = ArticleStore(connection: try await database.connect())
        self.store = store
        var configuration = FetcherConfiguration()
        configuration.allowLoopbackForTesting = true
        configuration.perHostRequestsPerSecond = 0
        configuration.resolveForTesting = ["\(hubHost):\(hubPort):127.0.0.1"]
        let fetcher = HTTPFetcher(configuration: configuration)
        self.fetcher = fetcher
        var pass = IngestPass(store: store, fetcher: fetcher, retentionDays: 7, concurrency: 4, logger: TestDatabase.logger)
        pass.subscribedPollInterval = .seconds(24 * 3600)
        let rejectedReasons = Locked<[String]>([])
        var events = WebSubEvents()
        events.pushRejected = { reason in rejectedReasons.withLock { $0.append(reason) } }
        let receiver = PushReceiver(pass: pass, events: events, queueLimit: queueLimit, budgetBytes: budgetBytes,
                                    logger: TestDatabase.logger)
        // The callback prefix needs the port, which the listener learns when it binds: the
        // subscriber's settings are made after.
        let placeholder = WebSubSubscriber.Settings(callbackPrefix: "", leaseSeconds: 864_000)
        var listenerLimits = WebSubListener.Limits(maxBodyBytes: maxBodyBytes)
        limits?(&listenerLimits)
        let listener = WebSubListener(host: "127.0.0.1", port: 0, limits: listenerLimits, store: store,
                                      receiver: receiver, subscriber: placeholder, logger: TestDatabase.logger)
        let (listening, port) = try await RunningService.listening { listener.service(onBound: $0) }
        self.listening = listening
        self.port = port
        let (start, started) = AsyncStream.makeStream(of: Void.self)
        receiverTask = Task {
            for await _ in start { break }
            await receiver.run()
        }
        startReceiver = started
        if receiving { started.finish() }
        var settings = WebSubSubscriber.Settings(callbackPrefix: "http://127.0.0.1:\(port)/websub", leaseSeconds: 864_000)
        settings.sendOnDiscovery = false
        settings.allowHTTPHubs = allowHTTPHubs
        let subscriber = WebSubSubscriber(store: store, fetcher: fetcher, settings: settings, workerID: workerID,
                                          logger: TestDatabase.logger)
        pass.hubObserver = { source, discovery in await subscriber.observe(source, discovery) }
        self.pass = pass
        self.subscriber = subscriber
        self.receiver = receiver
        self.rejected = rejectedReasons
    }

    /// Starts storing queued pushes (a daemon made with `receiving: false`).
    func startReceiving() { startReceiver.finish() }

    /// Waits until every push accepted so far is stored; the receiver takes no more after.
    func drain() async {
        startReceiver.finish()
        receiver.finish()
        await receiverTask.value
    }

    func stop() async {
        startReceiver.finish()
        receiver.finish()
        await receiverTask.value
        try? await listening.stop()
        fetcher.shutdown()
        await store.connection.close()
    }
}
