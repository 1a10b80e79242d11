import LoopbackHTTPServer
import PulseModel
import AddressPolicy
import CCurl
import Foundation
import TestSupport
import Testing
@testable import HTTPFetcher

/// A configuration for talking to the local test server: loopback enabled through the test-only
/// switch, no request spacing unless a test asks for it.
func localConfiguration(loopback: Bool = true) -> FetcherConfiguration {
    var configuration = FetcherConfiguration()
    configuration.allowLoopbackForTesting = loopback
    configuration.perHostRequestsPerSecond = 0
    configuration.perHostConnections = 8
    configuration.connectTimeout = .seconds(5)
    configuration.totalTimeout = .seconds(30)
    return configuration
}

func failure(_ fetcher: HTTPFetcher, _ request: FetchRequest) async -> FetchError? {
    do {
        let response = try await fetcher.fetch(request)
        Issue.record("expected a failure, got status \(response.status)")
        return nil
    } catch {
        return error
    }
}

@Suite(.tags(.integration))
struct FetcherIntegrationTests {
    let server: LoopbackHTTPServer
    let fetcher: HTTPFetcher

    init() throws {
        server = try LoopbackHTTPServer(routes: Routes.all)
        fetcher = HTTPFetcher(configuration: localConfiguration())
    }

    @Test func plainBodyAndMetadata() async throws {
        let response = try await fetcher.fetch(FetchRequest(url: "\(server.base)/plain", kind: .feed))
        #expect(response.status == 200)
        #expect(response.body == Array("hello world".utf8))
        #expect(response.contentType == "text/plain; charset=iso-8859-1")
        #expect(response.etag == "\"v1\"")
        #expect(response.lastModified == "Sat, 21 Nov 2026 10:00:00 GMT")
        #expect(response.cacheMaxAge == .seconds(300))
        #expect(!response.notModified)
        #expect(response.finalURL == "\(server.base)/plain")
    }

    @Test func sendsIdentityEncodingsAndValidators() async throws {
        let request = FetchRequest(url: "\(server.base)/echo", kind: .feed, etag: "\"abc\"",
                                   lastModified: "Sat, 21 Nov 2026 10:00:00 GMT")
        let head = String(decoding: try await fetcher.fetch(request).body, as: UTF8.self)
        #expect(head.contains("User-Agent: \(FetchSettings.defaultUserAgent)"))
        #expect(head.contains("If-None-Match: \"abc\""))
        #expect(head.contains("If-Modified-Since: Sat, 21 Nov 2026 10:00:00 GMT"))
        #expect(head.contains("Accept: application/rss+xml"))
        let encoding = head.components(separatedBy: "\r\n").first { $0.hasPrefix("Accept-Encoding:") } ?? ""
        #expect(encoding.contains("gzip"))
        let features = curl_version_info(CURLVERSION_ELEVENTH).pointee.features
        if features & CURL_VERSION_BROTLI != 0 { #expect(encoding.contains("br")) }
        if features & CURL_VERSION_ZSTD != 0 { #expect(encoding.contains("zstd")) }
    }

    @Test func validatorWithCRLFIsNotSent() async throws {
        let request = FetchRequest(url: "\(server.base)/echo", kind: .feed, etag: "\"x\"\r\nX-Injected: 1")
        let head = String(decoding: try await fetcher.fetch(request).body, as: UTF8.self)
        #expect(!head.contains("X-Injected"))
        #expect(!head.contains("If-None-Match"))
    }

    @Test func conditionalGetReturnsNotModified() async throws {
        let fresh = try await fetcher.fetch(FetchRequest(url: "\(server.base)/etag", kind: .feed))
        #expect(fresh.status == 200 && fresh.body == Array("fresh".utf8) && !fresh.notModified)
        let cached = try await fetcher.fetch(FetchRequest(url: "\(server.base)/etag", kind: .feed, etag: fresh.etag))
        #expect(cached.status == 304)
        #expect(cached.notModified)
        #expect(cached.body.isEmpty)
        #expect(cached.etag == "\"v1\"")
    }

    @Test func gzipBodyIsDecoded() async throws {
        let response = try await fetcher.fetch(FetchRequest(url: "\(server.base)/gzip", kind: .page))
        #expect(response.body == Routes.gzipPlain)
        let wire = try #require(response.bytesOnWire)
        #expect(wire == Routes.gzipBody.count)
        #expect(wire < response.body.count)
    }

    @Test func gzipBombIsAbortedAtTheDecodedCap() async {
        // 1 MB on the wire is far below the 16 MB feed cap; only counting decoded bytes stops it.
        let error = await failure(fetcher, FetchRequest(url: "\(server.base)/bomb", kind: .feed))
        #expect(error == .tooLarge(limit: 16 * 1024 * 1024))
    }

    @Test func declaredOversizeBodyIsRefused() async throws {
        let error = await failure(fetcher, FetchRequest(url: "\(server.base)/big", kind: .image))
        #expect(error == .tooLarge(limit: 256 * 1024))
        let allowed = try await fetcher.fetch(FetchRequest(url: "\(server.base)/big", kind: .image, maxBodyBytes: 400_000))
        #expect(allowed.body.count == 300_000)
    }

    @Test func undeclaredOversizeBodyIsCut() async {
        let error = await failure(fetcher, FetchRequest(url: "\(server.base)/big-undeclared", kind: .image))
        #expect(error == .tooLarge(limit: 256 * 1024))
    }

    @Test func redirectChainWithinLimitIsFollowed() async throws {
        let response = try await fetcher.fetch(FetchRequest(url: "\(server.base)/redirect/5", kind: .feed))
        #expect(response.body == Array("landed".utf8))
        #expect(response.finalURL == "\(server.base)/redirect/0")
        let absolute = try await fetcher.fetch(FetchRequest(url: "\(server.base)/to-plain-absolute", kind: .feed))
        #expect(absolute.finalURL == "\(server.base)/plain")
    }

    @Test func sixRedirectsAreTooMany() async {
        let error = await failure(fetcher, FetchRequest(url: "\(server.base)/redirect/6", kind: .feed))
        #expect(error == .tooManyRedirects(limit: 5))
        #expect(server.hits("/redirect/0") == 0)
    }

    @Test func redirectToMetadataIsBlocked() async {
        for path in ["/to-metadata", "/to-metadata-hex"] {
            let error = await failure(fetcher, FetchRequest(url: "\(server.base)\(path)", kind: .page))
            guard case .blockedAddress(let ip, let reason) = error else {
                Issue.record("\(path): expected blockedAddress, got \(String(describing: error))")
                continue
            }
            #expect(ip == "169.254.169.254")
            #expect(reason.contains("metadata"))
        }
    }

    @Test func redirectToFileIsRefused() async {
        let error = await failure(fetcher, FetchRequest(url: "\(server.base)/to-file", kind: .page))
        #expect(error == .badScheme(url: "file:///etc/passwd"))
    }

    @Test(arguments: ["file:///etc/passwd", "ftp://127.0.0.1/x", "gopher://127.0.0.1/", "javascript:alert(1)"])
    func nonHTTPSchemesAreRefused(url: String) async {
        let error = await failure(fetcher, FetchRequest(url: url, kind: .page))
        #expect(error == .badScheme(url: url))
    }

    @Test func tooManyRequestsCarriesRetryAfterAndGatesTheSource() async {
        let request = FetchRequest(url: "\(server.base)/429", kind: .feed, sourceKey: "source-a")
        #expect(await failure(fetcher, request) == .rateLimited(retryAfter: .seconds(7)))
        // The same source again is refused here without reaching the server...
        guard case .rateLimited(let wait)? = await failure(fetcher, request) else {
            Issue.record("expected rateLimited")
            return
        }
        #expect(wait.map { $0 > .zero && $0 <= .seconds(7) } == true)
        #expect(server.hits("/429") == 1)
        // ...while another source on the same host is not held back.
        var other = request
        other.sourceKey = "source-b"
        #expect(await failure(fetcher, other) == .rateLimited(retryAfter: .seconds(7)))
        #expect(server.hits("/429") == 2)
    }

    @Test func serviceUnavailableWithDateIsRateLimited() async throws {
        // The route dates Retry-After 120 s after its own clock reading, and the fetcher subtracts
        // its later one: the wait is 120 s less whatever passed between them (at most the time the
        // whole request took here), less one for the date's whole seconds. Bounding by the time
        // measured, not by a fixed margin, keeps a stalled or stepped clock from failing the test.
        let before = Date()
        let error = await failure(fetcher, FetchRequest(url: "\(server.base)/503-date", kind: .feed))
        let elapsed = Int(Date().timeIntervalSince(before).rounded(.up))
        guard case .rateLimited(let wait?)? = error else {
            Issue.record("expected rateLimited with a delay, got \(String(describing: error))")
            return
        }
        #expect(wait >= .seconds(119 - max(elapsed, 0)) && wait <= .seconds(121), "wait \(wait), request took \(elapsed) s")
        #expect(await failure(fetcher, FetchRequest(url: "\(server.base)/503", kind: .feed)) == .httpStatus(code: 503))
        #expect(await failure(fetcher, FetchRequest(url: "\(server.base)/500", kind: .feed)) == .httpStatus(code: 500))
        #expect(await failure(fetcher, FetchRequest(url: "\(server.base)/missing", kind: .feed)) == .httpStatus(code: 404))
    }

    @Test func manyConcurrentFetchesAllComplete() async throws {
        let base = server.base
        let fetcher = self.fetcher
        let bodies = try await withThrowingTaskGroup(of: [UInt8].self) { group in
            for _ in 0..<40 {
                group.addTask { try await fetcher.fetch(FetchRequest(url: "\(base)/plain", kind: .feed)).body }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(bodies.count == 40)
        #expect(bodies.allSatisfy { $0 == Array("hello world".utf8) })
    }

    @Test func cancellingTheTaskCancelsTheTransfer() async {
        let fetcher = self.fetcher
        let url = "\(server.base)/slow"
        let task = Task { await failure(fetcher, FetchRequest(url: url, kind: .feed)) }
        while server.hits("/slow") == 0 { try? await Task.sleep(for: .milliseconds(20)) }
        task.cancel()
        #expect(await task.value == .cancelled)
    }

    @Test func fetchAfterShutdownIsCancelled() async {
        let fetcher = HTTPFetcher(configuration: localConfiguration())
        fetcher.shutdown()
        #expect(await failure(fetcher, FetchRequest(url: "\(server.base)/plain", kind: .feed)) == .cancelled)
    }
}
