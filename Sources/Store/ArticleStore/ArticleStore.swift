import FoundationEssentials
import Logging
import Postgres
import PulseModel
import Synchronization

/// What one batch insert did.
public struct InsertOutcome: Sendable, Equatable {
    /// Candidates handed in.
    public var received = 0
    /// Rows that were new and are now stored.
    public var inserted = 0
    /// Rows whose canonical URL was already stored (or repeated within the batch).
    public var duplicates = 0
    /// Candidates refused by the contract's rules, by reason.
    public var rejected: [ArticleRejection: Int] = [:]
    /// The rows this call stored, with their new ids (enrichment works on these only).
    public var stored: [StoredArticle] = []

    public var rejectedCount: Int { rejected.values.reduce(0, +) }
}

/// A row this process just inserted.
public struct StoredArticle: Sendable, Equatable {
    public var id: String
    public var row: ArticleRow
}

/// What a store method throws when the database fails (unreachable, read-only, timed out,
/// refused): callers tell it from the feed's own failures without knowing the driver.
public typealias DatabaseError = PostgresError

/// The database side of ingestion: every write keeps the data contract's invariants.
public struct ArticleStore: Sendable {
    public let connection: PostgresConnection
    /// Rows per INSERT statement (each statement is its own transaction).
    public var chunkSize: Int
    /// Sessions the article inserts take turns on (`connection` among them). Each insert is a
    /// statement of its own, so they need no common session; with more than one, PostgreSQL
    /// computes one source's search vectors and index entries while another's are sent, instead
    /// of every source of the daemon queueing behind the same backend.
    public let insertLanes: [PostgresConnection]
    private let nextLane = LaneCounter()
    /// Pass logs whose closing failed (the database went away mid-pass), closed at the next open.
    let unclosedLogs = UnclosedLogs()
    let logger: Logger

    /// `extraInsertConnections` more sessions, opened on first use with `connection`'s settings.
    public init(connection: PostgresConnection, chunkSize: Int = 250, extraInsertConnections: Int = 0,
                logger: Logger = Logger(label: "pulse.store")) {
        self.connection = connection
        self.chunkSize = max(1, chunkSize)
        self.logger = logger
        self.insertLanes = [connection] + (0..<max(0, extraInsertConnections)).map { _ in
            PostgresConnection(settings: connection.settings, logger: logger)
        }
    }

    /// Closes the extra insert sessions (the main connection is the caller's).
    public func closeInsertLanes() async {
        for lane in insertLanes.dropFirst() { await lane.close() }
    }

    /// Inserts new articles for one source, ON CONFLICT (url_hash) DO NOTHING, in chunks. A lost
    /// connection is re-established and the unfinished chunk re-sent: committed chunks stay, and
    /// the conflict rule makes the re-send insert each remaining row exactly once.
    /// `onChunkCommitted` runs after each chunk with the count stored so far.
    public func insertArticles(
        _ candidates: [ArticleCandidate], source: SourceRecord, now: Date = Date(),
        onChunkCommitted: (@Sendable (Int) async -> Void)? = nil
    ) async throws -> InsertOutcome {
        var outcome = InsertOutcome(received: candidates.count)
        let builder = ArticleRowBuilder(now: now, sourceLanguage: source.language,
                                        sourceMaxContentLength: source.maxContentLength)
        var seen = Set<String>()
        var rows: [ArticleRow] = []
        for candidate in candidates {
            switch builder.build(candidate) {
            case .failure(let reason):
                outcome.rejected[reason, default: 0] += 1
            case .success(let row):
                if seen.insert(row.urlHash).inserted { rows.append(row) } else { outcome.duplicates += 1 }
            }
        }
        var start = 0
        while start < rows.count {
            let chunk = rows[start..<min(start + chunkSize, rows.count)]
            let lane = insertLanes[nextLane.next() % insertLanes.count]
            let returned = try await insertChunk(chunk, sourceID: source.id, on: lane)
            let byHash = Dictionary(chunk.map { ($0.urlHash, $0) }, uniquingKeysWith: { first, _ in first })
            for row in returned {
                guard let id = row["id"], let hash = row["url_hash"], let article = byHash[hash] else { continue }
                outcome.stored.append(StoredArticle(id: id, row: article))
            }
            outcome.inserted += returned.count
            outcome.duplicates += chunk.count - returned.count
            start += chunk.count
            await onChunkCommitted?(outcome.inserted)
        }
        return outcome
    }

    /// Active sources whose interval has elapsed and whose circuit is closed, oldest fetch first.
    /// `slugs` narrows the set (`--source`); unknown slugs are the caller's to report.
    public func dueSources(at now: Date = Date(), slugs: [String]? = nil) async throws -> [SourceRecord] {
        let filter: String? = slugs.map { PostgresArray.text($0) }
        return try await connection.withReconnect(label: "due sources") { db in
            try db.query("""
                SELECT \(SourceRecord.selectColumns)
                FROM public.sources s
                WHERE \(Self.dueCondition)
                  AND ($2::text[] IS NULL OR s.slug = ANY ($2::text[]))
                ORDER BY s.last_fetched_at NULLS FIRST, s.slug
                """, [now, filter], label: "due sources").rows.map(SourceRecord.init(row:))
        }
    }

    /// Active, circuit closed, and due: the scheduled `next_due_at`, else the last fetch plus the
    /// configured interval, has passed (`$1` is now). Shared by `dueSources` and `leasedElsewhere`.
    static let dueCondition = """
        s.is_active
        AND (s.circuit_open_until IS NULL OR s.circuit_open_until <= $1::timestamptz)
        AND coalesce(s.next_due_at, s.last_fetched_at + make_interval(hours => s.fetch_interval_hours),
                     '-infinity') <= $1::timestamptz
        """

    /// One source by slug, active or not.
    public func source(slug: String) async throws -> SourceRecord? {
        try await connection.withReconnect(label: "source by slug") { db in
            try db.query("""
                SELECT \(SourceRecord.selectColumns)
                FROM public.sources s
                WHERE s.slug = $1
                """, [slug], label: "source by slug").rows.first.map(SourceRecord.init(row:))
        }
    }
}

/// Round-robin position over the insert lanes.
final class LaneCounter: Sendable {
    private let value = Atomic<Int>(0)
    func next() -> Int { value.add(1, ordering: .relaxed).oldValue & Int.max }
}
