import Foundation
import LoopbackHTTPServer
import Synchronization
import TestSupport
import Testing
@testable import HTTPFetcher

/// TLS against the HTTPS servers of `LoopbackTLSServers` (private CAs made at run time), and the
/// refusal of redirects from https to plain http.
@Suite(.tags(.integration))
struct TLSTests {
    /// What `FetcherConfiguration.redirectRefused` was told.
    final class Refusals: Sendable {
        let list = Mutex<[RedirectRefusal]>([])
        var seen: [RedirectRefusal] { list.withLock { $0 } }
    }

    /// Runs `body` with a fresh set of servers, stopped (by pid) whatever happens.
    func withServers(_ body: (LoopbackTLSServers) async throws -> Void) async throws {
        // Starting the fixture waits on its pipe and stopping it on its exit: off the pool.
        let servers = try await offThePool { try LoopbackTLSServers() }
        do {
            try await body(servers)
        } catch {
            _ = try? await offThePool { servers.stop() }
            throw error
        }
        _ = try await offThePool { servers.stop() }
    }

    func fetcher(caFile: String? = nil, caPath: String? = nil, downgrade: Bool = false,
                 refusals: Refusals? = nil) -> HTTPFetcher {
        var configuration = localConfiguration()
        // Bounds, not measures: libcurl's connect timeout covers the TLS handshake, and under a
        // full `make test` on 2 cores the Python fixture (a thread per connection) once took past
        // the usual 5 s to answer one; these tests assert outcomes only.
        configuration.connectTimeout = .seconds(60)
        configuration.totalTimeout = .seconds(120)
        configuration.caFile = caFile
        configuration.caPath = caPath
        configuration.allowHTTPSDowngrade = downgrade
        if let refusals { configuration.redirectRefused = { reason in refusals.list.withLock { $0.append(reason) } } }
        return HTTPFetcher(configuration: configuration)
    }

    @Test func aPrivateCABundleMakesItsServersTrusted() async throws {
        try await withServers { servers in
            let fetcher = fetcher(caFile: servers.file("ca_a.pem"))
            defer { fetcher.shutdown() }
            let response = try await fetcher.fetch(FetchRequest(url: servers.url("a"), kind: .feed))
            #expect(response.status == 200)
            #expect(String(decoding: response.body, as: UTF8.self).contains("Private CA works"))
        }
    }

    @Test func withoutThePrivateCAItsServerIsRefused() async throws {
        try await withServers { servers in
            let fetcher = fetcher()
            defer { fetcher.shutdown() }
            let error = await failure(fetcher, FetchRequest(url: servers.url("a"), kind: .feed))
            #expect(error == .tls(message: "SSL certificate problem: unable to get local issuer certificate"))
        }
    }

    /// Trusting the private CA trusts only what it issued, for the names and the time it issued it.
    @Test(arguments: [
        ("self", "SSL certificate problem: self-signed certificate"),
        ("expired", "SSL certificate problem: certificate has expired"),
        ("wrong", "SSL: no alternative certificate subject name matches target host name '127.0.0.1'"),
    ])
    func badCertificatesAreRefusedByName(server: String, message: String) async throws {
        try await withServers { servers in
            let fetcher = fetcher(caFile: servers.file("ca_a.pem"))
            defer { fetcher.shutdown() }
            let error = await failure(fetcher, FetchRequest(url: servers.url(server), kind: .feed))
            #expect(error == .tls(message: message))
            #expect(error?.description == "TLS handshake or certificate failure: \(message)")
        }
    }

    /// OpenSSL reads the bundle (CAINFO) and the hashed folder (CAPATH) together; setting one of
    /// them leaves libcurl's default for the other in place.
    @Test func theBundleAndTheFolderAreBothRead() async throws {
        try await withServers { servers in
            let both = fetcher(caFile: servers.file("ca_a.pem"), caPath: servers.file("dir_c"))
            defer { both.shutdown() }
            let bundled = try await both.fetch(FetchRequest(url: servers.url("a"), kind: .feed))
            let folder = try await both.fetch(FetchRequest(url: servers.url("c"), kind: .feed))
            #expect(bundled.status == 200 && folder.status == 200)
            let other = await failure(both, FetchRequest(url: servers.url("b"), kind: .feed))
            #expect(other == .tls(message: "SSL certificate problem: unable to get local issuer certificate"))

            let folderOnly = fetcher(caPath: servers.file("dir_a"))
            defer { folderOnly.shutdown() }
            let fromFolder = try await folderOnly.fetch(FetchRequest(url: servers.url("a"), kind: .feed))
            #expect(fromFolder.status == 200)
        }
    }

    /// A plain-http loopback server, the target of the https server's 302.
    static func plainServer() throws -> LoopbackHTTPServer {
        try LoopbackHTTPServer(routes: ["/feed.xml": { _, connection, _ in
            connection.respond(200, headers: [("Content-Type", "application/rss+xml")], body: Array("plain".utf8))
        }])
    }

    @Test func httpsToHTTPRedirectIsRefusedAndCounted() async throws {
        let plain = try Self.plainServer()
        defer { plain.stop() }
        try await withServers { servers in
            let refusals = Refusals()
            let fetcher = fetcher(caFile: servers.file("ca_a.pem"), refusals: refusals)
            defer { fetcher.shutdown() }
            let target = "\(plain.base)/feed.xml"
            let error = await failure(fetcher, FetchRequest(url: servers.url("a", "/redirect?to=\(target)"), kind: .feed))
            #expect(error == .insecureRedirect(url: target))
            #expect(error?.description == "refused redirect from https to plain http: \(target)")
            #expect(plain.hits("/feed.xml") == 0)
            #expect(refusals.seen == [.httpsToHTTP])

            // https -> https is followed as before, and not counted.
            let secure = try await fetcher.fetch(FetchRequest(url: servers.url("a", "/redirect?to=\(servers.url("a"))"), kind: .feed))
            #expect(secure.finalURL == servers.url("a"))
            #expect(refusals.seen == [.httpsToHTTP])
        }
    }

    @Test func httpsToHTTPRedirectIsFollowedWhenAllowed() async throws {
        let plain = try Self.plainServer()
        defer { plain.stop() }
        try await withServers { servers in
            let refusals = Refusals()
            let fetcher = fetcher(caFile: servers.file("ca_a.pem"), downgrade: true, refusals: refusals)
            defer { fetcher.shutdown() }
            let target = "\(plain.base)/feed.xml"
            let response = try await fetcher.fetch(FetchRequest(url: servers.url("a", "/redirect?to=\(target)"), kind: .feed))
            #expect(response.finalURL == target)
            #expect(response.body == Array("plain".utf8))
            #expect(plain.hits("/feed.xml") == 1)
            #expect(refusals.seen.isEmpty)
        }
    }
}
