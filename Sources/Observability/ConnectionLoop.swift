#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The metrics server's event loop: every connection non-blocking, all of them watched by one
/// `poll`, so no client, however slow or idle, delays another's answer (one request per
/// connection; 40 idle connections once held a blocking server for 39 s).
///
/// Each connection has a deadline: `requestTimeout` to send its head (then 408), the same to take
/// its answer, and a short linger while its last bytes are drained. At most `maxConnections` are
/// open; when one more arrives, the longest-waiting connection that has not sent a complete head
/// is closed to make room (it is idle or trickling), so a flood of idle sockets cannot lock out a
/// scrape.
struct ConnectionLoop {
    let listenFD: Int32
    let wakeFD: Int32
    let requestTimeout: Duration
    let maxConnections: Int
    /// Routes one request head to its response; nil when the head is not HTTP (answered 400).
    let respond: (MiniHTTP.RequestHead?) -> MiniHTTP.Response
    /// Called once per connection closed to make room.
    let evicted: () -> Void

    static let lingerTime: Duration = .milliseconds(200)
    static let lingerBytes = 64 * 1024

    private enum Phase {
        case reading
        case writing(bytes: [UInt8], sent: Int)
        case lingering(drained: Int)
    }

    private struct Client {
        let fd: Int32
        let opened: ContinuousClock.Instant
        var deadline: ContinuousClock.Instant
        var buffer: [UInt8] = []
        var phase = Phase.reading
        var isIdle: Bool { if case .reading = phase { true } else { false } }
    }

    private var clients: [Client] = []

    init(listenFD: Int32, wakeFD: Int32, requestTimeout: Duration, maxConnections: Int,
         respond: @escaping (MiniHTTP.RequestHead?) -> MiniHTTP.Response, evicted: @escaping () -> Void) {
        self.listenFD = listenFD
        self.wakeFD = wakeFD
        self.requestTimeout = requestTimeout
        self.maxConnections = maxConnections
        self.respond = respond
        self.evicted = evicted
    }

    /// Runs until the wake descriptor becomes readable; closes every connection before returning.
    mutating func run() {
        defer { for client in clients { close(client.fd) } }
        while true {
            var fds = [pollfd(fd: listenFD, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)]
            for client in clients {
                let events = if case .writing = client.phase { POLLOUT } else { POLLIN }
                fds.append(pollfd(fd: client.fd, events: Int16(events), revents: 0))
            }
            let ready = poll(&fds, nfds_t(fds.count), pollTimeout())
            if ready < 0 && errno != EINTR { return }
            if fds[1].revents != 0 { return }
            let now = ContinuousClock.now
            for index in clients.indices.reversed() {
                let events = fds[index + 2].revents
                if events != 0 { step(index, now: now) } else if clients[index].deadline <= now { expire(index, now: now) }
            }
            if fds[0].revents & Int16(POLLIN) != 0 { acceptPending(now: now) }
        }
    }

    /// Milliseconds until the nearest deadline; -1 (wait for events only) with no connection.
    private func pollTimeout() -> Int32 {
        guard let nearest = clients.map(\.deadline).min() else { return -1 }
        let left = nearest - ContinuousClock.now
        guard left > .zero else { return 0 }
        return Int32(min(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1, 60_000))
    }

    private mutating func acceptPending(now: ContinuousClock.Instant) {
        // A bounded batch per wake-up keeps established connections served during a connect flood.
        for _ in 0..<64 {
            let fd = accept(listenFD, nil, nil)
            if fd < 0 {
                // Out of descriptors: a short pause instead of spinning on a readable listener.
                if errno == EMFILE || errno == ENFILE { _ = poll(nil, 0, 100) }
                return
            }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            if clients.count >= maxConnections {
                guard let oldest = clients.indices.filter({ clients[$0].isIdle })
                        .min(by: { clients[$0].opened < clients[$1].opened }) else {
                    close(fd)  // every slot is mid-answer: refuse the newcomer instead
                    continue
                }
                close(clients[oldest].fd)
                clients.remove(at: oldest)
                evicted()
            }
            clients.append(Client(fd: fd, opened: now, deadline: now + requestTimeout))
        }
    }

    private mutating func step(_ index: Int, now: ContinuousClock.Instant) {
        switch clients[index].phase {
        case .reading:
            var chunk = [UInt8](repeating: 0, count: 2048)
            let count = chunk.withUnsafeMutableBytes { recv(clients[index].fd, $0.baseAddress, $0.count, 0) }
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) { return }
            guard count > 0 else { return drop(index) }
            clients[index].buffer.append(contentsOf: chunk[..<count])
            let buffer = clients[index].buffer
            if let end = MiniHTTP.headEnd(in: buffer), end <= MiniHTTP.maxHeaderBytes {
                let head = MiniHTTP.parseHead(buffer[..<end])
                answer(index, respond(head), includeBody: head?.method != "HEAD", now: now)
            } else if buffer.count > MiniHTTP.maxHeaderBytes {
                answer(index, MiniHTTP.Response(status: 431, body: "request header too large\n"), now: now)
            }
        case .writing(let bytes, let sent):
            let count = bytes.withUnsafeBytes {
                send(clients[index].fd, $0.baseAddress! + sent, $0.count - sent, SocketOps.sendFlags)
            }
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) { return }
            guard count > 0 else { return drop(index) }
            if sent + count < bytes.count {
                clients[index].phase = .writing(bytes: bytes, sent: sent + count)
            } else {
                // Half-close, then drain what the client still sends, so unread bytes do not make
                // the kernel answer with a RST that destroys the response in flight (e.g. after 431).
                _ = shutdown(clients[index].fd, Int32(SHUT_WR))
                clients[index].phase = .lingering(drained: 0)
                clients[index].deadline = now + Self.lingerTime
            }
        case .lingering(let drained):
            var scratch = [UInt8](repeating: 0, count: 4096)
            let count = scratch.withUnsafeMutableBytes { recv(clients[index].fd, $0.baseAddress, $0.count, 0) }
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) { return }
            guard count > 0, drained + count < Self.lingerBytes else { return drop(index) }
            clients[index].phase = .lingering(drained: drained + count)
        }
    }

    private mutating func expire(_ index: Int, now: ContinuousClock.Instant) {
        if clients[index].isIdle {
            answer(index, MiniHTTP.Response(status: 408, body: "request timeout\n"), now: now)
        } else {
            drop(index)
        }
    }

    private mutating func answer(_ index: Int, _ response: MiniHTTP.Response, includeBody: Bool = true,
                                 now: ContinuousClock.Instant) {
        clients[index].buffer = []
        clients[index].phase = .writing(bytes: response.serialized(includeBody: includeBody), sent: 0)
        clients[index].deadline = now + requestTimeout
        step(index, now: now)  // usually the whole answer fits the socket buffer at once
    }

    private mutating func drop(_ index: Int) {
        close(clients[index].fd)
        clients.remove(at: index)
    }
}
