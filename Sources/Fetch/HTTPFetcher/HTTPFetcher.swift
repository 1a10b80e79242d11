import AddressPolicy
import Logging

/// The one downloader for feeds, pages and images. All transfers share one libcurl multi handle
/// driven by a dedicated thread (see `CurlMulti`); `fetch` only suspends while its hops run.
public final class HTTPFetcher: Sendable {
    public let configuration: FetcherConfiguration
    private let multi: CurlMulti?
    private let gate = RetryAfterGate()
    private let logger: Logger

    public init(configuration: FetcherConfiguration = FetcherConfiguration(),
                logger: Logger = Logger(label: "pulse-ingest.fetch")) {
        self.configuration = configuration
        self.logger = logger
        self.multi = CurlMulti(configuration: configuration)
        if multi == nil { logger.critical("libcurl could not be initialised; every fetch will fail") }
    }

    /// Downloads `request.url`, following up to `maxRedirects` redirects itself so that each hop's
    /// scheme and address are checked again. 2xx and 304 succeed; everything else throws.
    public func fetch(_ request: FetchRequest) async throws(FetchError) -> FetchResponse {
        var log = logger
        if let key = request.sourceKey { log[metadataKey: "source"] = "\(key)" }
        guard let multi else { throw .other(code: -1, message: "libcurl is not available") }
        if let key = request.sourceKey, let wait = gate.remaining(for: key) {
            throw .rateLimited(retryAfter: wait)
        }
        let exempt = configuration.exemptNetworks
        var url = request.url
        var redirects = 0
        var remaining = configuration.totalTimeout
        while true {
            let target: HopTarget
            do {
                target = try RedirectPolicy.validate(url, exempt: exempt)
            } catch {
                log.notice("fetch refused", metadata: ["url": "\(FetchError.clip(url))", "error": "\(error)"])
                throw error
            }
            guard remaining > .zero else { throw .timeout }
            let spec = HopSpec(target: target, request: request, configuration: configuration, timeout: remaining,
                               exempt: exempt)
            let hop: HopResult
            switch await multi.run(spec) {
            case .success(let result): hop = result
            case .failure(let error):
                log.debug("fetch failed", metadata: ["url": "\(target.url)", "error": "\(error)"])
                throw error
            }
            remaining -= hop.elapsed
            log.debug("hop done", metadata: ["url": "\(target.url)", "status": "\(hop.status)"])
            if let next = hop.redirectURL, request.form == nil {
                if !configuration.allowHTTPSDowngrade, RedirectPolicy.isDowngrade(from: target.url, to: next) {
                    log.notice("redirect refused", metadata: ["url": "\(target.url)", "location": "\(FetchError.clip(next))"])
                    configuration.redirectRefused?(.httpsToHTTP)
                    throw .insecureRedirect(url: next)
                }
                redirects += 1
                guard redirects <= configuration.maxRedirects else {
                    throw .tooManyRedirects(limit: configuration.maxRedirects)
                }
                url = next
                continue
            }
            return try response(for: hop, request: request, log: log)
        }
    }

    private func response(for hop: HopResult, request: FetchRequest, log: Logger) throws(FetchError) -> FetchResponse {
        let retryAfter = HeaderValues.retryAfter(hop.retryAfter, limit: configuration.maxRetryAfter)
        switch hop.status {
        case 200..<300, 304:
            let notModified = hop.status == 304
            return FetchResponse(
                status: hop.status, finalURL: hop.effectiveURL, body: notModified ? [] : hop.body,
                contentType: hop.contentType, etag: hop.etag, lastModified: hop.lastModified,
                retryAfter: retryAfter, cacheMaxAge: HeaderValues.cacheMaxAge(hop.cacheControl),
                notModified: notModified, bytesOnWire: notModified ? 0 : hop.bytesOnWire, link: hop.link)
        // 503 without Retry-After is an ordinary server error; with it, the server is asking for a pause.
        case let code where code == 429 || (code == 503 && retryAfter != nil):
            if let key = request.sourceKey, let retryAfter { gate.record(key, retryAfter: retryAfter) }
            log.info("rate limited", metadata: ["status": "\(hop.status)", "retryAfter": "\(retryAfter.map { "\($0)" } ?? "none")"])
            throw .rateLimited(retryAfter: retryAfter)
        default:
            throw .httpStatus(code: hop.status)
        }
    }

    /// Cancels everything in flight and releases libcurl. Later fetches fail with `.cancelled`.
    public func shutdown() {
        multi?.shutdown()
    }
}
