import ArticleStore
import Foundation
import Synchronization

extension ArticleStore {
    /// Every source's status (or the `limit` worst), in `streamSourceStatuses`' order, gathered
    /// into one array.
    public func sourceStatuses(at now: Date = Date(), limit: Int? = nil) async throws -> [SourceStatus] {
        let collected = StatusCollector()
        try await streamSourceStatuses(at: now, limit: limit) { collected.append($0) }
        return collected.statuses
    }
}

private final class StatusCollector: Sendable {
    private let collected = Mutex<[SourceStatus]>([])
    var statuses: [SourceStatus] { collected.withLock { $0 } }
    func append(_ batch: [SourceStatus]) { collected.withLock { $0 += batch } }
}
