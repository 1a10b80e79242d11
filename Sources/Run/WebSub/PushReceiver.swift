import ArticleStore
import FoundationEssentials
import Ingestion
import Logging

/// What the listener reports, for metrics (the service wires these to Prometheus).
public struct WebSubEvents: Sendable {
    /// Every POST that reached a known source.
    public var pushReceived: @Sendable () -> Void = {}
    /// A push that stored nothing, by reason (`bad_signature`, `missing_signature`, `too_large`, ...).
    public var pushRejected: @Sendable (String) -> Void = { _ in }
    /// A push whose rows were committed: how many, and the time from its arrival.
    public var pushStored: @Sendable (_ inserted: Int, _ latency: Duration) -> Void = { _, _ in }
    /// A verification request: its mode and whether it matched a pending request.
    public var verification: @Sendable (_ mode: String, _ accepted: Bool) -> Void = { _, _ in }

    public init() {}
}

/// One verified push, waiting to be stored.
struct PushJob: Sendable {
    let slug: String
    let body: [UInt8]
    let contentType: String?
    let received: ContinuousClock.Instant
}

/// Stores verified pushes after the hub has had its answer: a bounded queue drained by a few
/// workers, each push going through `IngestPass.ingestPushed` (parse, insert, enrich). A full
/// queue drops the push (counted): polling still brings its items.
public final class PushReceiver: Sendable {
    let pass: IngestPass
    let events: WebSubEvents
    let workers: Int
    private let stream: AsyncStream<PushJob>
    private let continuation: AsyncStream<PushJob>.Continuation
    let logger: Logger

    public init(pass: IngestPass, events: WebSubEvents = WebSubEvents(), workers: Int = 4, queueLimit: Int = 1000,
                logger: Logger) {
        self.pass = pass
        self.events = events
        self.workers = max(1, workers)
        (stream, continuation) = AsyncStream.makeStream(of: PushJob.self, bufferingPolicy: .bufferingOldest(queueLimit))
        self.logger = logger
    }

    func enqueue(_ job: PushJob) {
        if case .dropped = continuation.yield(job) { events.pushRejected("queue_full") }
    }

    /// Drains the queue until `finish()` is called (or the task is cancelled).
    public func run() async {
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<workers {
                group.addTask { [self] in
                    for await job in stream {
                        await store(job)
                    }
                }
            }
        }
    }

    /// No more pushes: `run` returns once the queued ones are stored.
    public func finish() { continuation.finish() }

    func store(_ job: PushJob) async {
        do {
            guard let source = try await pass.store.source(slug: job.slug) else { return }
            try await pass.store.recordWebSubPush(sourceID: source.id)
            let events = self.events
            let outcome = await pass.ingestPushed(job.body, contentType: job.contentType, source: source) { outcome in
                if !outcome.failed { events.pushStored(outcome.inserted, ContinuousClock.now - job.received) }
            }
            if outcome.failed { events.pushRejected(outcome.databaseFailure ? "database" : "unparseable") }
            logger.debug("push stored", metadata: ["source": "\(job.slug)", "inserted": "\(outcome.inserted)"])
        } catch {
            events.pushRejected("database")
            logger.error("could not store a push", metadata: ["source": "\(job.slug)", "error": "\(error)"])
        }
    }
}
