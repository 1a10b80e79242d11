import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A deliberately small HTTP/1.1 server for the integration tests (the demo and the benchmarks'
/// feed farm are Tests/Benchmarks/feed-farm.py): it listens on 127.0.0.1 only, on an ephemeral
/// port, serves each connection on its own thread, answers one request per connection
/// (`Connection: close`) and routes by path to canned behaviours. Hand-written although Hummingbird
/// is in the package: a route writes the raw bytes to the socket itself, which tests need
/// (trickled bodies, lying Content-Length, gzip bombs).
public final class LoopbackHTTPServer: Sendable {
    public struct Request: Sendable {
        public let method: String
        public let path: String
        /// Lowercased names.
        public let headers: [String: String]
        public let rawHead: String
        /// The body as `Content-Length` declares it (up to 1 MiB; POSTs of WebSub tests and hubs).
        public var body: [UInt8] = []
    }

    /// Lets a route write to its connection.
    public struct Connection {
        public let fd: Int32

        @discardableResult
        public func write(_ bytes: [UInt8]) -> Bool {
            var offset = 0
            while offset < bytes.count {
                let sent = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if sent <= 0 { return false }
                offset += sent
            }
            return true
        }

        @discardableResult
        public func respond(_ status: Int, _ reason: String = "OK", headers: [(String, String)] = [], body: [UInt8] = [],
                     contentLength: Int? = nil) -> Bool {
            var head = "HTTP/1.1 \(status) \(reason)\r\nConnection: close\r\n"
            for (name, value) in headers { head += "\(name): \(value)\r\n" }
            if let length = contentLength ?? (status == 304 ? nil : body.count) { head += "Content-Length: \(length)\r\n" }
            head += "\r\n"
            return write(Array(head.utf8)) && write(body)
        }
    }

    public typealias Route = @Sendable (Request, Connection, LoopbackHTTPServer) -> Void

    public struct Stats {
        public var hits: [String: Int] = [:]
        public var current = 0
        public var maxConcurrent = 0
        public var arrivals: [ContinuousClock.Instant] = []
    }

    public let port: Int
    private let listener: Int32
    private let routes: [String: Route]
    private let stopped = Atomic<Bool>(false)
    public let stats = Mutex(Stats())

    /// `routes` is keyed by path without the query; the longest matching prefix ending in "/" also
    /// matches (so "/redirect/" serves "/redirect/3").
    public init(routes: [String: Route]) throws {
        self.routes = routes
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ServerError.socket }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        let bound = LoopbackSocket.withAddress(port: 0) { bind(fd, $0, $1) }
        guard bound == 0, listen(fd, 128) == 0 else { close(fd); throw ServerError.bind }
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.port = Int(UInt16(bigEndian: address.sin_port))
        self.listener = fd
        let acceptThread = Thread { [self] in acceptLoop() }
        acceptThread.start()
    }

    public enum ServerError: Error { case socket, bind }

    /// A loopback port nothing listens on, for "connection refused" tests. Below the kernel's
    /// ephemeral range (32768 up): a port the kernel handed out and took back can be handed to
    /// another test's listener at once, and such a test then reached that listener (seen once in
    /// a CI run). Nothing binds these ports but tests that name them. 25000-29999 here; the
    /// metrics server's own test uses 20000-24999.
    public static func closedPort() throws -> Int {
        let first = Int.random(in: 25_000...29_000)
        for port in first..<(first + 1_000) {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { throw ServerError.socket }
            defer { close(fd) }
            if LoopbackSocket.withAddress(port: port, { bind(fd, $0, $1) }) == 0 { return port }   // free: closed again by the defer, never listened on
        }
        throw ServerError.bind
    }

    public var base: String { "http://127.0.0.1:\(port)" }

    public func hits(_ path: String) -> Int { stats.withLock { $0.hits[path, default: 0] } }

    public func stop() {
        guard !stopped.exchange(true, ordering: .relaxed) else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    deinit { stop() }

    private func acceptLoop() {
        while !stopped.load(ordering: .relaxed) {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if stopped.load(ordering: .relaxed) { return }
                continue
            }
            let worker = Thread { [self] in serve(client) }
            worker.start()
        }
    }

    private func serve(_ fd: Int32) {
        defer { close(fd) }
        guard let request = readRequest(fd) else { return }
        let path = String(request.path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0])
        stats.withLock { $0.hits[path, default: 0] += 1; $0.arrivals.append(.now) }
        let route = routes[path] ?? routes.filter { $0.key.hasSuffix("/") && path.hasPrefix($0.key) }
            .max(by: { $0.key.count < $1.key.count })?.value
        let connection = Connection(fd: fd)
        if let route {
            route(request, connection, self)
        } else {
            connection.respond(404, "Not Found", body: Array("no route".utf8))
        }
    }

    private func readRequest(_ fd: Int32) -> Request? {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while buffer.count < 65536 {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { return nil }
            buffer.append(contentsOf: chunk[0..<n])
            if let end = buffer.firstRange(of: Array("\r\n\r\n".utf8)) {
                let head = String(decoding: buffer[..<end.lowerBound], as: UTF8.self)
                let lines = head.components(separatedBy: "\r\n")
                let requestLine = lines[0].split(separator: " ")
                guard requestLine.count >= 2 else { return nil }
                var headers: [String: String] = [:]
                for line in lines.dropFirst() {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    let name = line[..<colon].lowercased()
                    headers[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                }
                var request = Request(method: String(requestLine[0]), path: String(requestLine[1]), headers: headers, rawHead: head)
                if let length = headers["content-length"].flatMap({ Int($0) }), length > 0, length <= 1 << 20 {
                    var body = Array(buffer[end.upperBound...])
                    while body.count < length {
                        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                        if n <= 0 { break }
                        body.append(contentsOf: chunk[0..<n])
                    }
                    request.body = Array(body.prefix(length))
                }
                return request
            }
        }
        return nil
    }

    /// Marks a request as running for the concurrency routes.
    public func enter() { stats.withLock { $0.current += 1; $0.maxConcurrent = max($0.maxConcurrent, $0.current) } }
    public func leave() { stats.withLock { $0.current -= 1 } }
}
