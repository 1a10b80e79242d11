import LoopbackHTTPServer
import Foundation

/// The canned routes every integration test server serves.
enum Routes {
    static let gzipPlain: [UInt8] = Array("gzip:".utf8) + [UInt8](repeating: UInt8(ascii: "a"), count: 100_000)
    static let gzipBody = GzipFixture.gzip(prefix: Array("gzip:".utf8), repeating: UInt8(ascii: "a"), count: 100_000)
    static let bombBody = GzipFixture.bomb(compressedSize: 1 << 20)

    static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }

    static let all: [String: LoopbackHTTPServer.Route] = [
        "/plain": { _, c, _ in
            c.respond(200, headers: [
                ("Content-Type", "text/plain; charset=iso-8859-1"), ("ETag", "\"v1\""),
                ("Last-Modified", "Sat, 21 Nov 2026 10:00:00 GMT"), ("Cache-Control", "public, max-age=300"),
            ], body: Array("hello world".utf8))
        },
        "/etag": { r, c, _ in
            if r.headers["if-none-match"] == "\"v1\"" {
                c.respond(304, "Not Modified", headers: [("ETag", "\"v1\"")])
            } else {
                c.respond(200, headers: [("ETag", "\"v1\"")], body: Array("fresh".utf8))
            }
        },
        "/echo": { r, c, _ in c.respond(200, body: Array(r.rawHead.utf8)) },
        "/gzip": { _, c, _ in
            c.respond(200, headers: [("Content-Encoding", "gzip"), ("Content-Type", "text/plain")], body: gzipBody)
        },
        "/bomb": { _, c, _ in
            c.respond(200, headers: [("Content-Encoding", "gzip"), ("Content-Type", "application/rss+xml")], body: bombBody)
        },
        "/big": { _, c, _ in c.respond(200, body: [UInt8](repeating: UInt8(ascii: "x"), count: 300_000)) },
        "/big-undeclared": { _, c, _ in
            // No Content-Length: the body ends when the connection closes, so only the write
            // callback's count can stop it.
            guard c.write(Array("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Type: image/png\r\n\r\n".utf8)) else { return }
            for _ in 0..<30 where c.write([UInt8](repeating: 0x42, count: 10_000)) {}
        },
        "/slow": { _, c, _ in
            guard c.write(Array("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 100000\r\n\r\n".utf8)) else { return }
            for _ in 0..<150 {
                guard c.write([0x41]) else { return }
                Thread.sleep(forTimeInterval: 0.2)
            }
        },
        "/redirect/": { r, c, _ in
            let n = Int(r.path.split(separator: "/").last ?? "") ?? 0
            if n > 0 {
                c.respond(302, "Found", headers: [("Location", "/redirect/\(n - 1)")])
            } else {
                c.respond(200, body: Array("landed".utf8))
            }
        },
        "/to-metadata": { _, c, _ in
            c.respond(302, "Found", headers: [("Location", "http://169.254.169.254/latest/meta-data/")])
        },
        "/to-metadata-hex": { _, c, _ in
            c.respond(302, "Found", headers: [("Location", "http://0xa9.0xfe.0xa9.0xfe/latest/meta-data/")])
        },
        "/to-file": { _, c, _ in c.respond(302, "Found", headers: [("Location", "file:///etc/passwd")]) },
        "/to-plain-absolute": { _, c, s in c.respond(301, "Moved", headers: [("Location", "\(s.base)/plain")]) },
        "/429": { _, c, _ in c.respond(429, "Too Many Requests", headers: [("Retry-After", "7")], body: Array("slow down".utf8)) },
        "/503-date": { _, c, _ in
            c.respond(503, "Unavailable", headers: [("Retry-After", httpDate(Date().addingTimeInterval(120)))])
        },
        "/503": { _, c, _ in c.respond(503, "Unavailable") },
        "/500": { _, c, _ in c.respond(500, "Internal Server Error", body: Array("boom".utf8)) },
        "/hold": { _, c, s in
            s.enter()
            Thread.sleep(forTimeInterval: 0.4)
            s.leave()
            c.respond(200, body: Array("held".utf8))
        },
    ]
}
