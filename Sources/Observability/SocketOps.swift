#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Thin wrappers over the POSIX socket calls the metrics server makes.
enum SocketOps {
    #if canImport(Glibc)
    static let streamType = Int32(SOCK_STREAM.rawValue)
    static let sendFlags = Int32(MSG_NOSIGNAL)
    #else
    static let streamType = SOCK_STREAM
    static let sendFlags: Int32 = 0
    #endif

    static func listeningSocket(for address: MetricsAddress) throws(MetricsServerError) -> Int32 {
        let domain = address.family == .ipv6 ? AF_INET6 : AF_INET
        let fd = socket(domain, streamType, 0)
        guard fd >= 0 else { throw .system(call: "socket", errno: errno) }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        var one: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        #if canImport(Darwin)
        _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
        let bound: Int32
        switch address.family {
        case .ipv4:
            var sin = sockaddr_in()
            sin.sin_family = sa_family_t(AF_INET)
            sin.sin_port = address.port.bigEndian
            sin.sin_addr = MetricsAddress.parseIPv4(address.host)!
            bound = withUnsafePointer(to: &sin) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        case .ipv6:
            // v6-only so "[::]:port" does not silently also listen on every IPv4 address.
            _ = setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &one, socklen_t(MemoryLayout<Int32>.size))
            var sin6 = sockaddr_in6()
            sin6.sin6_family = sa_family_t(AF_INET6)
            sin6.sin6_port = address.port.bigEndian
            sin6.sin6_addr = MetricsAddress.parseIPv6(address.host)!
            bound = withUnsafePointer(to: &sin6) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        }
        guard bound == 0 else {
            let code = errno
            close(fd)
            throw .system(call: "bind \(address)", errno: code)
        }
        guard listen(fd, 16) == 0 else {
            let code = errno
            close(fd)
            throw .system(call: "listen", errno: code)
        }
        return fd
    }

    static func localPort(of fd: Int32) -> UInt16? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard result == 0 else { return nil }
        return withUnsafePointer(to: &storage) { pointer -> UInt16? in
            switch Int32(pointer.pointee.ss_family) {
            case AF_INET:
                return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
            case AF_INET6:
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) }
            default:
                return nil
            }
        }
    }

    static func setSendTimeout(_ fd: Int32, _ timeout: Duration) {
        var tv = timeval(tv_sec: Int(timeout.components.seconds),
                         tv_usec: .init(timeout.components.attoseconds / 1_000_000_000_000))
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }

    enum HeadResult {
        case head([UInt8])
        case tooLarge
        case timedOut
        case closed
    }

    /// Reads until the blank line ending the request head, the size limit, EOF, or the deadline.
    static func readHead(_ fd: Int32, deadline: ContinuousClock.Instant, limit: Int) -> HeadResult {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 2048)
        while true {
            if let end = MiniHTTP.headEnd(in: buffer), end <= limit {
                return .head(Array(buffer[..<end]))
            }
            if buffer.count > limit { return .tooLarge }
            guard waitReadable(fd, until: deadline) else { return .timedOut }
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return .closed }
            buffer.append(contentsOf: chunk[..<count])
        }
    }

    static func waitReadable(_ fd: Int32, until deadline: ContinuousClock.Instant) -> Bool {
        while true {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { return false }
            let millis = Int32(min(remaining.components.seconds * 1000
                + remaining.components.attoseconds / 1_000_000_000_000_000 + 1, Int64(Int32.max)))
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&pfd, 1, millis)
            if ready > 0 { return true }
            if ready < 0 && errno != EINTR { return false }
        }
    }

    static func sendAll(_ fd: Int32, _ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + offset, $0.count - offset, sendFlags) }
            if sent < 0 && errno == EINTR { continue }
            if sent <= 0 { return }  // peer gone or SO_SNDTIMEO hit: nothing more to do.
            offset += sent
        }
    }

    /// Half-closes, then drains what the client still sends (briefly) so the kernel does not
    /// answer unread bytes with a RST that could destroy the response in flight (e.g. after 431).
    static func lingeringClose(_ fd: Int32) {
        _ = shutdown(fd, Int32(SHUT_WR))
        let deadline = ContinuousClock.now + .milliseconds(200)
        var scratch = [UInt8](repeating: 0, count: 4096)
        var drained = 0
        while drained < 64 * 1024, waitReadable(fd, until: deadline) {
            let count = scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            drained += count
        }
        close(fd)
    }
}
