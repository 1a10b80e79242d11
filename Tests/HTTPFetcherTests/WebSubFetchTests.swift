import LoopbackHTTPServer
import Synchronization
import Testing

@testable import HTTPFetcher

/// What WebSub needs of the fetcher: the `Link` header of a feed, and a form POST to a hub that
/// goes through the same guard and limits as every fetch.
@Suite struct WebSubFetchTests {
    @Test func linkHeadersAreExposedJoined() async throws {
        let server = try LoopbackHTTPServer(routes: ["/feed": { _, connection, _ in
            connection.respond(200, headers: [
                ("Content-Type", "application/rss+xml"),
                ("Link", "<https://hub.example/>; rel=\"hub\""),
                ("Link", "<https://site.example/feed>; rel=\"self\""),
            ], body: Array("<rss/>".utf8))
        }])
        defer { server.stop() }
        let fetcher = HTTPFetcher(configuration: localConfiguration())
        defer { fetcher.shutdown() }
        let response = try await fetcher.fetch(FetchRequest(url: "\(server.base)/feed", kind: .feed))
        #expect(response.link == "<https://hub.example/>; rel=\"hub\", <https://site.example/feed>; rel=\"self\"")
    }

    @Test func formPostSendsTheBodyAndReturnsTheStatus() async throws {
        let seen = Mutex<(method: String, type: String?, body: [UInt8])?>(nil)
        let server = try LoopbackHTTPServer(routes: ["/hub": { request, connection, _ in
            seen.withLock { $0 = (request.method, request.headers["content-type"], request.body) }
            connection.respond(202, "Accepted")
        }])
        defer { server.stop() }
        let fetcher = HTTPFetcher(configuration: localConfiguration())
        defer { fetcher.shutdown() }
        var request = FetchRequest(url: "\(server.base)/hub", kind: .hub)
        request.form = Array("hub.mode=subscribe&hub.topic=https%3A%2F%2Fa.example%2F".utf8)
        let response = try await fetcher.fetch(request)
        #expect(response.status == 202)
        let got = try #require(seen.withLock { $0 })
        #expect(got.method == "POST")
        #expect(got.type == "application/x-www-form-urlencoded")
        #expect(got.body == request.form)
    }

    /// A hub answering with a redirect is not followed (the POST would turn into a GET).
    @Test func formPostDoesNotFollowRedirects() async throws {
        let server = try LoopbackHTTPServer(routes: ["/hub": { _, connection, server in
            connection.respond(307, "Temporary Redirect", headers: [("Location", "\(server.base)/elsewhere")])
        }])
        defer { server.stop() }
        let fetcher = HTTPFetcher(configuration: localConfiguration())
        defer { fetcher.shutdown() }
        var request = FetchRequest(url: "\(server.base)/hub", kind: .hub)
        request.form = Array("hub.mode=subscribe".utf8)
        await #expect(throws: FetchError.httpStatus(code: 307)) { try await fetcher.fetch(request) }
        #expect(server.hits("/elsewhere") == 0)
    }

    /// The SSRF guard applies to hubs as to feeds: a loopback hub is refused without the test exemption.
    @Test func formPostIsGuarded() async throws {
        let server = try LoopbackHTTPServer(routes: ["/hub": { _, connection, _ in connection.respond(202) }])
        defer { server.stop() }
        let fetcher = HTTPFetcher(configuration: localConfiguration(loopback: false))
        defer { fetcher.shutdown() }
        var request = FetchRequest(url: "\(server.base)/hub", kind: .hub)
        request.form = Array("hub.mode=subscribe".utf8)
        await #expect(throws: FetchError.self) { try await fetcher.fetch(request) }
        #expect(server.hits("/hub") == 0)
    }
}

@Suite struct LinkHeaderTests {
    @Test func hubAndSelfFromOneJoinedValue() {
        let links = LinkHeader.parse("<https://hub.example/>; rel=\"hub\", <https://site.example/feed>; rel=self")
        #expect(LinkHeader.first("hub", in: links) == "https://hub.example/")
        #expect(LinkHeader.first("self", in: links) == "https://site.example/feed")
    }

    @Test func severalRelationsCaseAndQuotedCommas() {
        let links = LinkHeader.parse("<https://a.example/x,y>; title=\"a, b\"; REL=\"Hub Self\" , <broken")
        #expect(links == [LinkHeader.Link(target: "https://a.example/x,y", relations: ["hub", "self"])])
    }

    @Test func nothingUsable() {
        #expect(LinkHeader.parse(nil).isEmpty)
        #expect(LinkHeader.parse("no brackets; rel=hub").isEmpty)
        #expect(LinkHeader.first("hub", in: LinkHeader.parse("<https://a.example/>; rel=alternate")) == nil)
    }
}
