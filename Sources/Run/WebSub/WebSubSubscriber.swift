import ArticleStore
import FoundationEssentials
import HTTPFetcher
import Ingestion
import Logging
import ServiceLifecycle

/// The subscribing side: turns what fetches discover into subscription requests, sends them to
/// hubs through the one fetcher (SSRF guard, timeouts, body cap), renews before leases end and
/// unsubscribes deactivated sources and feeds that stopped naming their hub. Each request is sent
/// by whichever daemon claims the row; any daemon's listener may receive the verification.
public struct WebSubSubscriber: Sendable {
    public struct Settings: Sendable {
        /// `{callbackPrefix}/{slug}/{token}` is each subscription's callback.
        public var callbackPrefix: String
        public var leaseSeconds: Int
        /// How long a hub may take to verify a request before it counts as failed.
        public var verifyWithin: Duration = .seconds(3600)
        /// Retry after a failure: doubles per consecutive failure from this, up to a day.
        public var retryAfter: Duration = .seconds(900)
        /// How often `run` looks for due actions.
        public var tick: Duration = .seconds(30)
        /// Send a request as soon as a fetch discovers a new hub (the service), rather than only
        /// at the next tick (tests drive `runDue` themselves).
        public var sendOnDiscovery = true
        /// Subscribe to `http://` hubs, whose requests carry the secret in clear text
        /// (`websub.allow_http_hubs`: intranets and tests only).
        public var allowHTTPHubs = false

        public init(callbackPrefix: String, leaseSeconds: Int) {
            self.callbackPrefix = callbackPrefix
            self.leaseSeconds = leaseSeconds
        }

        public func callback(slug: String, token: String) -> String { callbackPrefix + "/" + slug + "/" + token }

        /// When to renew a lease granted for `seconds` from `now`: a tenth of the lease (at least a
        /// minute, at most a day) before it ends, so a slow or failing hub has time for retries.
        public func renewAt(leaseSeconds seconds: Int, from now: Date) -> Date {
            let margin = min(max(seconds / 10, 60), 86_400)
            return now.addingTimeInterval(Double(max(seconds - margin, seconds / 2)))
        }
    }

    public let store: ArticleStore
    public let fetcher: HTTPFetcher
    public let settings: Settings
    public let workerID: String
    let logger: Logger
    /// Set once the callback listener is bound (or could not be): a hub verifies intent right
    /// after a request, so no request is sent before. Already set unless the caller passes one.
    public let callbackListening: StopSignal

    public init(store: ArticleStore, fetcher: HTTPFetcher, settings: Settings, workerID: String, logger: Logger,
                callbackListening: StopSignal? = nil) {
        self.store = store
        self.fetcher = fetcher
        self.settings = settings
        self.workerID = workerID
        self.logger = logger
        self.callbackListening = callbackListening ?? { let set = StopSignal(); set.stop(); return set }()
    }

    /// `IngestPass.hubObserver`: records what a fetch discovered (a new subscription gets a new
    /// secret). Inactive sources are left to `runDue`, which unsubscribes them.
    public func observe(_ source: SourceRecord, _ discovery: HubDiscovery) async {
        do {
            let changed = try await store.observeHub(sourceID: source.id, hub: discovery.hub, topic: discovery.topic,
                                                     secret: HubSignature.newSecret(), token: HubSignature.newSecret())
            // A new subscription (or unsubscription) is sent now rather than at the next tick; in
            // its own task, so the source's pass does not wait on the hub.
            if changed, settings.sendOnDiscovery {
                let subscriber = self
                Task { try? await subscriber.runDue() }
            }
        } catch {
            logger.warning("could not record the feed's hub", metadata: ["source": "\(source.slug)", "error": "\(error)"])
        }
    }

    /// Sends every due request (new subscriptions, renewals, unsubscriptions, retries) and
    /// returns how many were sent.
    @discardableResult
    public func runDue(now: Date = Date()) async throws -> Int {
        await callbackListening.wait()
        let due = try await store.claimWebSubActions(workerID: workerID, limit: 32, claim: .seconds(300), at: now)
        await withTaskGroup(of: Void.self) { group in
            for subscription in due { group.addTask { await act(on: subscription, now: now) } }
        }
        return due.count
    }

    /// Calls `runDue`, then `afterRound`, every `tick` until the service's graceful shutdown.
    public func run(afterRound: @Sendable () async throws -> Void = {}) async {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                try await runDue()
                try await afterRound()
            } catch {
                logger.warning("websub subscriber could not read its work", metadata: ["error": "\(error)"])
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: settings.tick) }
        }
    }

    func act(on subscription: WebSubSubscription, now: Date) async {
        var log = logger
        log[metadataKey: "source"] = "\(subscription.slug)"
        // A request that was sent and not verified in time: the hub failed us.
        if subscription.requestedAt != nil, subscription.pendingMode != nil {
            await fail(subscription, "the hub did not verify the \(subscription.pendingMode!.rawValue) request in time",
                       now: now, log: log)
            return
        }
        let mode: WebSubSubscription.Mode = !subscription.sourceActive ? .unsubscribe
            : subscription.pendingMode ?? .subscribe
        // The secret travels in the request's body: never in clear text unless the operator said so.
        if mode == .subscribe, !settings.allowHTTPHubs, !subscription.hub.lowercased().hasPrefix("https://") {
            await fail(subscription, "the hub is not https://, so its secret would travel in clear text "
                       + "(websub.allow_http_hubs: true allows it)", now: now, log: log, retry: false)
            return
        }
        let token = subscription.callbackToken ?? HubSignature.newSecret()
        var form = [("hub.mode", mode.rawValue), ("hub.topic", subscription.topic),
                    ("hub.callback", settings.callback(slug: subscription.slug, token: token))]
        if mode == .subscribe {
            form += [("hub.secret", subscription.secret), ("hub.lease_seconds", String(settings.leaseSeconds))]
        }
        var request = FetchRequest(url: subscription.hub, kind: .hub, sourceKey: "websub:" + subscription.slug)
        request.form = Array(FormEncoding.encode(form).utf8)
        do {
            // Record the request as pending before sending it: the hub may verify before it answers.
            try await store.markWebSubRequested(sourceID: subscription.sourceID, mode: mode, token: token,
                                                verifyBy: now.addingTimeInterval(Double(settings.verifyWithin.components.seconds)),
                                                at: now)
            _ = try await fetcher.fetch(request)
            log.info("websub request accepted by the hub", metadata: ["mode": "\(mode.rawValue)", "hub": "\(subscription.hub)"])
        } catch {
            await fail(subscription, "\(mode.rawValue) request failed: \(error)", now: now, log: log)
        }
    }

    /// Records a failed request; it is tried again after a backoff unless `retry` is false or it
    /// was an unsubscription.
    func fail(_ subscription: WebSubSubscription, _ message: String, now: Date, log: Logger, retry: Bool = true) async {
        log.warning("websub subscription failed; the source polls on its normal schedule", metadata: ["error": "\(message)"])
        let backoff = settings.retryAfter.components.seconds << min(subscription.failures, 7)
        let retry = !retry || subscription.pendingMode == .unsubscribe || !subscription.sourceActive
            ? nil : now.addingTimeInterval(Double(min(backoff, 86_400)))
        do {
            try await store.markWebSubFailed(sourceID: subscription.sourceID, error: message, retryAt: retry, at: now)
        } catch {
            log.error("could not record the websub failure", metadata: ["error": "\(error)"])
        }
    }
}

/// `application/x-www-form-urlencoded` (WHATWG URL, urlencoded serializer).
enum FormEncoding {
    static func encode(_ pairs: [(String, String)]) -> String {
        pairs.map { escape($0.0) + "=" + escape($0.1) }.joined(separator: "&")
    }

    static func escape(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2A, 0x2D, 0x2E, 0x5F: out.unicodeScalars.append(Unicode.Scalar(byte))
            case 0x20: out += "+"
            default: out += "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 15, radix: 16, uppercase: true)
            }
        }
        return out
    }
}
