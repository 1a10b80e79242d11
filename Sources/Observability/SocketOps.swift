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
        // Non-blocking: the event loop accepts until EAGAIN. The backlog holds a burst of scrapers
        // and health checks while the loop is busy.
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        guard listen(fd, 128) == 0 else {
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

    static func sendAll(_ fd: Int32, _ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + offset, $0.count - offset, sendFlags) }
            if sent < 0 && errno == EINTR { continue }
            if sent <= 0 { return }  // peer gone or SO_SNDTIMEO hit: nothing more to do.
            offset += sent
        }
    }
}
