import Foundation
import AddressPolicy
import HTTPFetcher
import LoopbackHTTPServer

/// The loopback feed server of the `--once`, daemon and service tests, and a fetcher allowed to
/// reach it.
public enum FixtureFeeds {
    public static let itemsPerFeed = 6

    /// Feed N: six items, the last one older than the retention window; feed 7 fails with 500,
    /// feed 13 is not XML. ETags make a second fetch answer 304.
    public static func feedServer(now: Date) throws -> LoopbackHTTPServer {
        try LoopbackHTTPServer(routes: ["/feeds/": { request, connection, _ in
            let name = request.path.split(separator: "/").last.map(String.init) ?? ""
            guard let number = Int(name.replacingOccurrences(of: ".xml", with: "")) else {
                connection.respond(404, "Not Found")
                return
            }
            if number == 7 { connection.respond(500, "Internal Server Error", body: Array("boom".utf8)); return }
            if number == 13 {
                connection.respond(200, headers: [("Content-Type", "text/html")], body: Array("<html><body>gone</body></html>".utf8))
                return
            }
            let etag = "\"feed-\(number)-v1\""
            if request.headers["if-none-match"] == etag {
                connection.respond(304, "Not Modified", headers: [("ETag", etag)])
                return
            }
            connection.respond(200, headers: [("Content-Type", "application/rss+xml; charset=utf-8"), ("ETag", etag)],
                               body: Array(rss(number: number, now: now).utf8))
        }])
    }

    public static func rss(number: Int, now: Date) -> String {
        var items = ""
        for item in 1...itemsPerFeed {
            let age = item == itemsPerFeed ? 30 * 86_400.0 : Double(item) * 3_600
            let date = rfc822(now.addingTimeInterval(-age))
            items += """
                <item><title>Feed \(number) story \(item) &amp; more</title>
                <link>https://news\(number).example.com/story/\(item)?utm=x&amp;a=1</link>
                <guid>urn:feed:\(number):\(item)</guid><pubDate>\(date)</pubDate>
                <description>&lt;p&gt;Summary of story \(item).&lt;/p&gt;</description></item>
                """
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <rss version="2.0"><channel><title>Feed \(number)</title><link>https://news\(number).example.com/</link>
            \(items)</channel></rss>
            """
    }

    public static func rfc822(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }

    public static func fetcher(_ adjust: (inout FetcherConfiguration) -> Void = { _ in }) -> HTTPFetcher {
        var configuration = FetcherConfiguration()
        // The operator's exemption (`--allow-networks`), not a test-only knob: this target is a
        // regular one, built by `swift build -c release` too, where `@testable` is refused.
        configuration.allowedNetworks = [CIDR(string: "127.0.0.0/8")!, CIDR(string: "::1/128")!]
        configuration.perHostConnections = 8
        configuration.perHostRequestsPerSecond = 0
        adjust(&configuration)
        return HTTPFetcher(configuration: configuration)
    }
}
