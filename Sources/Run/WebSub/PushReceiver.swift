import ArticleStore
import FoundationEssentials
import Ingestion
import Logging
import Synchronization

/// What the listener reports, for metrics (the service wires these to Prometheus).
public struct WebSubEvents: Sendable {
    /// Every POST that reached a live subscription with a usable signature header.
    public var pushReceived: @Sendable () -> Void = {}
    /// A push that stored nothing, by reason (`bad_signature`, `missing_signature`, `too_large`,
    /// `busy`, `queue_full`, ...).
    public var pushRejected: @Sendable (String) -> Void = { _ in }
    /// A push whose rows were committed: how many, and the time from its arrival.
    public var pushStored: @Sendable (_ inserted: Int, _ latency: Duration) -> Void = { _, _ in }
    /// A verification request: its mode and whether it matched a pending request.
    public var verification: @Sendable (_ mode: String, _ accepted: Bool) -> Void = { _, _ in }

    public init() {}
}

/// Bytes of push bodies held at once, being read or waiting to be stored: a bound on memory that
/// neither the connection cap nor the queue's length gives (twelve 16 MiB bodies are 192 MiB).
public final class ByteBudget: Sendable {
    public let capacity: Int
    private let used = Mutex(0)

    public init(capacity: Int) { self.capacity = capacity }

    /// Takes `bytes` from the budget; false (nothing taken) when they do not fit.
    public func reserve(_ bytes: Int) -> Bool {
        used.withLock { used in
            guard bytes <= capacity - used else { return false }
            used += bytes
            return true
        }
    }

    public func release(_ bytes: Int) { used.withLock { $0 = max(0, $0 - bytes) } }

    public var inUse: Int { used.withLock { $0 } }
}

/// One verified push, waiting to be stored; it holds `heldBytes` of the budget until then.
struct PushJob: Sendable {
    let slug: String
    let sourceID: String
    let body: [UInt8]
    let heldBytes: Int
    let contentType: String?
    let received: ContinuousClock.Instant
}

/// Stores verified pushes after the hub has had its answer: a queue bounded in pushes and in
/// bytes, drained by a few workers, each push going through `IngestPass.ingestPushed` (parse,
/// insert, enrich). A push is acknowledged only once queued; one the database could not take is
/// tried again, and if it still cannot be stored its source is made due, so the next poll brings
/// its items. After a crash, the service makes every subscribed source due (`run` callers).
public final class PushReceiver: Sendable {
    let pass: IngestPass
    let events: WebSubEvents
    let workers: Int
    public let budget: ByteBudget
    /// Waits between tries of a push the database refused (the last one is the final try).
    let retryDelays: [Duration]
    private let stream: AsyncStream<PushJob>
    private let continuation: AsyncStream<PushJob>.Continuation
    let logger: Logger

    /// The default bytes held over all pushes (read and queued): 64 MiB.
    public static let defaultBudgetBytes = 64 << 20

    /// `queueLimit`: pushes acknowledged and not yet stored live only in memory, so a crash loses
    /// them (their sources are then polled at the restart); a hub told 503 sends again.
    public init(pass: IngestPass, events: WebSubEvents = WebSubEvents(), workers: Int = 4, queueLimit: Int = 256,
                budgetBytes: Int = PushReceiver.defaultBudgetBytes,
                retryDelays: [Duration] = [.seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(16)],
                logger: Logger) {
        self.pass = pass
        self.events = events
        self.workers = max(1, workers)
        budget = ByteBudget(capacity: budgetBytes)
        self.retryDelays = retryDelays
        (stream, continuation) = AsyncStream.makeStream(of: PushJob.self, bufferingPolicy: .bufferingOldest(queueLimit))
        self.logger = logger
    }

    /// Queues a verified push; false when the queue is full or closed (its bytes are given back,
    /// and the hub is told to retry).
    func enqueue(_ job: PushJob) -> Bool {
        switch continuation.yield(job) {
        case .enqueued: return true
        case .dropped:
            events.pushRejected("queue_full")
        case .terminated:
            events.pushRejected("stopping")
        @unknown default:
            events.pushRejected("queue_full")
        }
        budget.release(job.heldBytes)
        return false
    }

    /// Drains the queue until `finish()` is called (or the task is cancelled).
    public func run() async {
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<workers {
                group.addTask { [self] in
                    for await job in stream {
                        await store(job)
                        budget.release(job.heldBytes)
                    }
                }
            }
        }
    }

    /// No more pushes: `run` returns once the queued ones are stored.
    public func finish() { continuation.finish() }

    func store(_ job: PushJob) async {
        var failure = "unknown"
        for attempt in 0...retryDelays.count {
            if attempt > 0 {
                try? await Task.sleep(for: retryDelays[attempt - 1])
            }
            do {
                guard let source = try await pass.store.source(slug: job.slug), source.isActive else { return }
                try await pass.store.recordWebSubPush(sourceID: source.id)
                let events = self.events
                let outcome = await pass.ingestPushed(job.body, contentType: job.contentType, source: source) { outcome in
                    if !outcome.failed { events.pushStored(outcome.inserted, ContinuousClock.now - job.received) }
                }
                guard outcome.failed else {
                    logger.debug("push stored", metadata: ["source": "\(job.slug)", "inserted": "\(outcome.inserted)"])
                    return
                }
                guard outcome.databaseFailure else {
                    events.pushRejected("unparseable")
                    return
                }
                failure = "the database did not take the push's items"
            } catch {
                failure = "\(error)"
            }
        }
        events.pushRejected("database")
        logger.error("could not store an acknowledged push; its source is polled now instead",
                     metadata: ["source": "\(job.slug)", "error": "\(failure)"])
        do {
            try await pass.store.makeWebSubSourceDue(sourceID: job.sourceID)
        } catch {
            logger.error("could not make the source due; it is polled at the next restart or its schedule",
                         metadata: ["source": "\(job.slug)", "error": "\(error)"])
        }
    }
}
