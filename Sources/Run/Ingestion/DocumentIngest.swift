import ArticleStore
import CanonicalURL
import FeedParser
import FoundationEssentials
import HTTPFetcher
import LanguageTagger
import Logging
import Threads

/// What a feed fetch says about WebSub (W3C WebSub 4, discovery): the `Link` header is read first,
/// the feed's own `<link rel="hub">`/`<link rel="self">` second. Without a self link the topic is
/// the configured feed URL (what the publisher's hub most likely knows the feed by).
public struct HubDiscovery: Sendable, Equatable {
    public var hub: String?
    public var topic: String?

    public init(hub: String?, topic: String?) {
        self.hub = hub
        self.topic = topic
    }

    public init(linkHeader: String?, document: FeedDocument, feedURL: String) {
        let links = LinkHeader.parse(linkHeader)
        let headerHub = LinkHeader.first("hub", in: links).flatMap(StoredURL.check)
        let headerSelf = LinkHeader.first("self", in: links).flatMap(StoredURL.check)
        if let headerHub {
            hub = headerHub
            topic = headerSelf ?? document.selfURL ?? feedURL
        } else {
            hub = document.hub
            topic = document.hub == nil ? nil : (document.selfURL ?? headerSelf ?? feedURL)
        }
    }
}

extension IngestPass {
    /// Parse a feed body and insert its new items: the part of a source's processing that follows
    /// the fetch, shared by polling and WebSub pushes (`enrichStored` follows). Fills `outcome`.
    func parseAndInsert(_ body: [UInt8], contentType: String?, baseURL: String?, source: SourceRecord, now: Date,
                        logger: Logger, outcome: inout SourceOutcome) async throws -> (FeedDocument, [StoredArticle]) {
        let clock = ContinuousClock()
        var options = parserOptions
        options.maxContentLength = min(options.maxContentLength, source.maxContentLength ?? .max)
        let parseStarted = clock.now
        let document = try await OffPool.run { [options] in
            try FeedParser.parse(body, contentType: contentType, baseURL: baseURL, options: options)
        }
        outcome.parseDuration = clock.now - parseStarted
        var mapped = EntryMapping(now: now, retentionDays: retentionDays).map(document.items)
        if enricher == nil, detectsLanguage(source) {
            // No page will be read for these rows, so their one language decision needs nothing
            // more than their own text: made now, it goes in with the INSERT instead of an UPDATE
            // of every new row after it (which cost the daemon bench a fifth of its rate).
            for index in mapped.candidates.indices {
                let candidate = mapped.candidates[index]
                let decision = LanguageTagger.decideRow(
                    title: candidate.title, summary: candidate.summary, body: candidate.content, page: nil,
                    configured: source.language, detectionEnabled: true)
                if decision.source == .detected { mapped.candidates[index].language = decision.code }
            }
        }
        let stored = try await store.insertArticles(mapped.candidates, source: source, now: now)
        outcome.itemsSeen = document.items.count + document.droppedCount
        outcome.inserted = stored.inserted
        outcome.duplicates = stored.duplicates
        outcome.dropped = document.droppedCount + stored.rejectedCount
        outcome.tooOld = mapped.tooOld
        outcome.recovered = document.recovered
        return (document, stored.stored)
    }

    /// Enriches the rows `parseAndInsert` stored, adding to `outcome`.
    func enrichStored(_ stored: [StoredArticle], source: SourceRecord, stop: StopSignal, logger: Logger,
                      outcome: inout SourceOutcome) async {
        let enrichment = await enrich(stored, source: source, stop: stop, logger: logger)
        outcome.enriched = enrichment.updated
        if enrichment.refusals > 0 { outcome.parseRefusals["page"] = enrichment.refusals }
        outcome.enrichDurations = enrichment.durations
        outcome.languageDisagreements = enrichment.languageDisagreements
        if enrichment.languageDisagreements > 0 {
            // Counted in the pass line and the metric; per source only at debug level.
            logger.debug("detected languages differ from the configured one", metadata: [
                "configured": "\(source.language)", "items": "\(enrichment.languageDisagreements)",
            ])
        }
    }

    /// A WebSub push: the hub's body goes through the same parse, insert and enrichment as a
    /// fetched feed, without a fetch and without touching the source's fetch state (validators,
    /// schedule and circuit belong to polling). Never throws: failures are in the outcome.
    /// `onInserted` sees the outcome as soon as the rows are committed, before enrichment (rows are
    /// readable from then on: the push-to-row latency ends there).
    public func ingestPushed(_ body: [UInt8], contentType: String?, source: SourceRecord, now: Date = Date(),
                             stop: StopSignal = StopSignal(),
                             onInserted: (@Sendable (SourceOutcome) -> Void)? = nil) async -> SourceOutcome {
        let started = ContinuousClock.now
        var outcome = SourceOutcome(slug: source.slug, result: .updated)
        var sourceLogger = logger
        sourceLogger[metadataKey: "source"] = "\(source.slug)"
        do {
            let (_, stored) = try await parseAndInsert(body, contentType: contentType, baseURL: source.feedURL,
                                                       source: source, now: now, logger: sourceLogger, outcome: &outcome)
            onInserted?(outcome)
            await enrichStored(stored, source: source, stop: stop, logger: sourceLogger, outcome: &outcome)
        } catch let error as DatabaseError {
            outcome.result = .failed("database: \(error)")
            outcome.databaseFailure = true
            sourceLogger.error("database error while storing a push", metadata: ["error": "\(error)"])
        } catch {
            outcome.result = .failed("\(error)")
            sourceLogger.warning("pushed content could not be parsed", metadata: ["error": "\(error)"])
        }
        outcome.duration = ContinuousClock.now - started
        return outcome
    }
}
