import ArticleStore
import FeedParser
import FoundationEssentials
import Glibc
import HTTPFetcher
import Enrichment
import Threads
import Logging
import PulseModel
import Synchronization

/// One pass over a set of sources: fetch concurrently, parse, insert, record fetch state, and
/// bracket it all with one `fetch_logs` row.
public struct IngestPass: Sendable {
    public let store: ArticleStore
    public let fetcher: HTTPFetcher
    public var parserOptions: FeedParserOptions
    /// Items published before now minus this many days are not inserted.
    public var retentionDays: Int
    /// Sources processed at once (the fetcher adds its own global and per-host limits).
    public var concurrency: Int
    /// After a stop request, in-flight sources get this long before they are abandoned.
    public var drainDeadline: Duration
    /// Cap on a feed's decoded body; nil keeps the fetcher's default (16 MB).
    public var feedBodyLimit: Int?
    /// The daemon's scheduling: next due times and lease release. nil for `--once`, which keeps
    /// the configured interval.
    public var scheduling: PassScheduling?
    /// Sources whose `language_detection: off` pins the configured language (beside those the
    /// database says so of, `SourceRecord.languageDetection`).
    public var languageDetectionOff: Set<String> = []
    /// Page enrichment of new rows (og:image, readable body, language); nil skips it.
    public var enricher: Enricher?
    /// Told what each successful (200) fetch says about a WebSub hub (the subscriber's input).
    public var hubObserver: (@Sendable (SourceRecord, HubDiscovery) async -> Void)?
    /// The poll interval of a source with a live push subscription (polling stays the safety
    /// net); nil keeps the normal schedule for every source.
    public var subscribedPollInterval: Duration?
    let logger: Logger

    public init(store: ArticleStore, fetcher: HTTPFetcher, parserOptions: FeedParserOptions = .init(),
                retentionDays: Int = 7, concurrency: Int = 16, drainDeadline: Duration = .seconds(10),
                logger: Logger) {
        self.store = store
        self.fetcher = fetcher
        self.parserOptions = parserOptions
        self.retentionDays = retentionDays
        self.concurrency = max(1, concurrency)
        self.drainDeadline = drainDeadline
        self.feedBodyLimit = nil
        self.scheduling = nil
        self.logger = logger
    }

    /// Runs the pass. `stop` is polled before each new source starts; once it fires, sources in
    /// flight have `drainDeadline` to finish, then they are cancelled. The fetch_logs row is closed
    /// either way. `report` sees each source's outcome as it completes.
    public func run(sources: [SourceRecord], now: Date = Date(), stop: StopSignal = StopSignal(),
                    report: @escaping @Sendable (SourceOutcome) -> Void = { _ in }) async throws -> PassSummary {
        let logID = try await store.openFetchLog(at: now)
        let started = ContinuousClock.now
        var summary = PassSummary()
        await withTaskGroup(of: ChildResult.self) { group in
            var pending = sources[...]
            var running = 0
            // The drain deadline: once a stop is requested, wait, then cancel what is still running.
            group.addTask {
                await stop.wait()
                if Task.isCancelled { return .finished }
                try? await Task.sleep(for: drainDeadline)
                return Task.isCancelled ? .finished : .deadline
            }
            while true {
                while running < concurrency, !stop.isStopped, let source = pending.popFirst() {
                    running += 1
                    group.addTask {
                        let outcome = await process(source, now: now, stop: stop)
                        return .source((Task.isCancelled || outcome.stopped) && outcome.failed ? nil : outcome)
                    }
                }
                if running == 0 { break }
                switch await group.next() {
                case .source(let outcome):
                    running -= 1
                    if let outcome {
                        summary.outcomes.append(outcome)
                        report(outcome)
                    }
                case .deadline:
                    logger.warning("drain deadline passed; abandoning the sources still in flight",
                                   metadata: ["abandoned": "\(running)"])
                    group.cancelAll()
                case .finished, nil:
                    break
                }
            }
            group.cancelAll()
            summary.interrupted = stop.isStopped && summary.outcomes.count < sources.count
        }
        summary.duration = ContinuousClock.now - started
        try await store.closeFetchLog(id: logID, summary: logSummary(summary))
        return summary
    }

    /// Fetch, parse and store one source. Feed problems count against the source's circuit;
    /// database problems do not (they are not the feed's fault) and are reported as such.
    func process(_ source: SourceRecord, now: Date, stop: StopSignal = StopSignal()) async -> SourceOutcome {
        let clock = ContinuousClock()
        let started = clock.now
        var outcome = SourceOutcome(slug: source.slug, result: .updated)
        var sourceLogger = logger
        sourceLogger[metadataKey: "source"] = "\(source.slug)"
        do {
            // A stop abandons the fetch at once: it is redone after the restart (the lease is given
            // back), and a fetch stuck on an unreachable network would otherwise hold the drain.
            let request = FetchRequest(url: source.feedURL, kind: .feed, etag: source.etag, lastModified: source.lastModified,
                                       sourceKey: source.slug, maxBodyBytes: feedBodyLimit)
            let response = try await Self.unlessStopped(stop) { [fetcher] in try await fetcher.fetch(request) }
            outcome.bytes = response.body.count
            outcome.fetchDuration = clock.now - started
            if response.notModified {
                let next = try await nextFetch(source, now: now, hints: .init(
                    retryAfter: response.retryAfter, cacheMaxAge: response.cacheMaxAge))
                try await store.recordFetchSuccess(sourceID: source.id, etag: response.etag,
                                                   lastModified: response.lastModified, notModified: true, at: now,
                                                   schedule: next)
                outcome.result = .notModified
            } else {
                let (document, stored) = try await parseAndInsert(response.body, contentType: response.contentType,
                                                                  baseURL: response.finalURL, source: source, now: now,
                                                                  logger: sourceLogger, outcome: &outcome)
                let next = try await nextFetch(source, now: now, hints: .init(
                    retryAfter: response.retryAfter, cacheMaxAge: response.cacheMaxAge,
                    ttlMinutes: document.ttlMinutes))
                try await store.recordFetchSuccess(sourceID: source.id, etag: response.etag,
                                                   lastModified: response.lastModified, notModified: false, at: now,
                                                   schedule: next)
                await enrichStored(stored, source: source, stop: stop, logger: sourceLogger, outcome: &outcome)
                if let hubObserver {
                    await hubObserver(source, HubDiscovery(linkHeader: response.link, document: document,
                                                           feedURL: source.feedURL))
                }
            }
        } catch is PassStopped {
            outcome.result = .failed("stopped before its feed was fetched")
            outcome.stopped = true
        } catch let error as DatabaseError {
            outcome.result = .failed("database: \(error)")
            outcome.databaseFailure = true
            sourceLogger.error("database error while storing a source; it is tried again soon",
                               metadata: ["error": "\(error)"])
        } catch {
            outcome.result = .failed("\(error)")
            if case FetchError.blockedAddress = error { outcome.blocked = true }
            switch error as? FeedParseError {
            case .cpuBudgetExceeded?, .depthLimitExceeded?, .markupTooComplex?: outcome.parseRefusals["feed"] = 1
            default: break
            }
            sourceLogger.warning("source failed", metadata: ["error": "\(error)"])
            if !Task.isCancelled {
                do {
                    try await store.recordFetchFailure(sourceID: source.id, at: now,
                                                       schedule: retryFetch(after: error, now: now))
                } catch {
                    sourceLogger.error("could not record the failure", metadata: ["error": "\(error)"])
                }
            }
        }
        outcome.duration = clock.now - started
        return outcome
    }

    /// Whether the language of this source's items is detected (`LanguageDetectionRule`).
    func detectsLanguage(_ source: SourceRecord) -> Bool {
        LanguageDetectionRule.isOn(slug: source.slug, sourceSetting: source.languageDetection, off: languageDetectionOff)
    }

    /// The next due time after a success: adaptive, from the publishing rate of the last week.
    func nextFetch(_ source: SourceRecord, now: Date, hints: SchedulePolicy.Hints) async throws -> NextFetch? {
        guard let scheduling else { return nil }
        if source.pushSubscribed, let relaxed = subscribedPollInterval {
            return NextFetch(dueAt: now.addingTimeInterval(relaxed.seconds), workerID: scheduling.workerID)
        }
        let items = source.lastFetchedAt == nil
            ? nil : try await store.itemsPublishedLastWeek(sourceID: source.id, at: now)
        let due = scheduling.policy.nextDue(after: now, configuredHours: source.fetchIntervalHours,
                                            itemsLastWeek: items, hints: hints)
        return NextFetch(dueAt: due, workerID: scheduling.workerID)
    }

    /// After a failure: soon (the circuit breaker takes over from the fifth), or when the server's
    /// Retry-After says, whichever is later.
    func retryFetch(after error: any Error, now: Date) -> NextFetch? {
        guard let scheduling else { return nil }
        var due = scheduling.policy.retryAfterFailure(now: now)
        if case FetchError.rateLimited(let retryAfter?) = error {
            due = max(due, now.addingTimeInterval(min(retryAfter, scheduling.policy.maximumInterval).seconds))
        }
        return NextFetch(dueAt: due, workerID: scheduling.workerID)
    }

    func logSummary(_ summary: PassSummary) -> FetchLogSummary {
        var log = FetchLogSummary()
        log.sourcesProcessed = summary.outcomes.count
        log.sourcesFailed = summary.failedCount
        log.articlesFetched = summary.itemsSeen
        log.articlesInserted = summary.inserted
        log.articlesSkipped = summary.outcomes.reduce(0) { $0 + $1.duplicates + $1.dropped + $1.tooOld }
        log.errors = summary.outcomes.compactMap {
            if case .failed(let message) = $0.result { "\($0.slug): \(message)" } else { nil }
        }
        return log
    }
}

enum ChildResult: Sendable {
    case source(SourceOutcome?)
    case deadline
    case finished
}

/// Who this daemon is and how it schedules.
public struct PassScheduling: Sendable {
    public var workerID: String
    public var policy: SchedulePolicy

    public init(workerID: String, policy: SchedulePolicy) {
        self.workerID = workerID
        self.policy = policy
    }
}

/// A one-way stop request that tasks can poll or await (SIGINT/SIGTERM, tests).
/// Thrown by `IngestPass.unlessStopped` when the stop signal fired first.
struct PassStopped: Error {}

extension IngestPass {
    /// `work`'s result, unless `stop` fires first: then `work` is cancelled and `PassStopped` thrown.
    static func unlessStopped<T: Sendable>(_ stop: StopSignal, _ work: @escaping @Sendable () async throws -> T)
        async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await work() }
            group.addTask { await stop.wait(); return nil }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else { throw PassStopped() }
            return value
        }
    }
}

public final class StopSignal: Sendable {
    private let state = Mutex<(stopped: Bool, waiters: [UUID: CheckedContinuation<Void, Never>])>((false, [:]))

    public init() {}

    public var isStopped: Bool { state.withLock { $0.stopped } }

    public func stop() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard !state.stopped else { return [] }
            state.stopped = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once `stop()` was called (at once if it already was), or when the task is cancelled.
    public func wait() async {
        let id = UUID()
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state -> Bool in
                    if state.stopped || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }
}
