import ArticleStore
import CanonicalURL
import Enrichment
import FeedParser
import FoundationEssentials
import HTTPFetcher
import LanguageTagger
import Logging
import PulseModel
import Threads

/// What a feed fetch says about WebSub (W3C WebSub 4, discovery): the `Link` header is read first,
/// the feed's own `<link rel="hub">`/`<link rel="self">` second. Without a self link the topic is
/// the configured feed URL (what the publisher's hub most likely knows the feed by).
public struct HubDiscovery: Sendable, Equatable {
    public var hub: String?
    public var topic: String?

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

    /// Enriches the rows `parseAndInsert` stored (when enrichment is on) through `EnrichmentMerge`,
    /// adding to `outcome`. Never fails the source: a row keeps what the feed gave, and failed
    /// kinds count an attempt so `--backfill` retries them later.
    func enrichStored(_ stored: [StoredArticle], source: SourceRecord, stop: StopSignal, logger: Logger,
                      outcome: inout SourceOutcome) async {
        guard !stored.isEmpty else { return }
        let detect = detectsLanguage(source)
        if let enricher {
            let targets = stored.map { article in
                var wants: Set<BackfillKind> = []
                // A podcast/video episode whose only URL is its enclosure has no page: never
                // download the media file as if it were one (no wants, no fetch).
                let pageless = article.row.mediaURL.map { CanonicalURL.canonicalize($0) == article.row.url } ?? false
                // A feed thumbnail is only a stand-in: the page's og:image replaces it.
                let imageIsStandIn = article.row.imageURL == nil || article.row.imageURL == article.row.thumbnailURL
                if !pageless {
                    if imageIsStandIn { wants.insert(.image) }
                    if enricher.needsExtraction(summary: article.row.summary, content: article.row.content) { wants.insert(.content) }
                    if detect { wants.insert(.language) }
                }
                return EnrichmentTarget(id: article.id, url: article.row.url, title: article.row.title,
                                        summary: article.row.summary, content: article.row.content,
                                        configuredLanguage: source.language, detectLanguage: detect, wants: wants)
            }
            let started = ContinuousClock.now
            // A stop abandons the page fetches: the rows keep their feed fields (`--backfill` fills
            // them later), and their language is decided from their own text.
            let results = (try? await Self.unlessStopped(stop) { await enricher.enrich(targets) }) ?? []
            outcome.enrichDurations = results.map(\.duration)
            let refusals = results.filter(\.refused).count
            if refusals > 0 { outcome.parseRefusals["page"] = refusals }
            let merge = EnrichmentMerge(targets: targets, results: results)
            do {
                // Rows showing the feed's thumbnail are not missing an image: no attempt to count.
                let imageless = Set(stored.filter { $0.row.imageURL == nil }.map(\.id))
                try await merge.write(to: store, attempts: .failedOnPage(imageless: imageless))
            } catch {
                logger.warning("could not store enrichment; rows keep their feed fields", metadata: ["error": "\(error)"])
                return
            }
            // Enriched: the page gave the row something (an image, a body, or its language).
            outcome.enriched = merge.rows.filter {
                $0.update.imageURL != nil || $0.update.content != nil || $0.detected?.fromPage == true
            }.count
            outcome.languageDisagreements = merge.rows.filter { $0.detected?.disagrees == true }.count
            logger.debug("enriched new rows", metadata: [
                "rows": "\(targets.count)", "updated": "\(outcome.enriched)",
                "language_disagreements": "\(outcome.languageDisagreements)",
                "seconds": "\((ContinuousClock.now - started).components.seconds)",
            ])
        } else if detect {
            // No page is read: each row's language was decided before its INSERT (`parseAndInsert`).
            outcome.languageDisagreements = stored.filter { $0.row.languageDetected && $0.row.language != source.language }.count
        }
        if outcome.languageDisagreements > 0 {
            // Counted in the pass line and the metric; per source only at debug level.
            logger.debug("detected languages differ from the configured one", metadata: [
                "configured": "\(source.language)", "items": "\(outcome.languageDisagreements)",
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
