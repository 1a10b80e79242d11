import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The IPv4 loopback socket calls the test servers, clients and raw-socket tests share.
public enum LoopbackSocket {
    /// A TCP socket connected to 127.0.0.1:`port`, with a 10 s receive timeout: a server that never
    /// answers ends a read instead of hanging a test. Throws the connect's errno.
    /// `source`, another loopback address (127.0.0.2), makes the connection come from another client.
    public static func connected(port: Int, from source: String? = nil) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        if let source, withAddress(port: 0, host: source, { bind(fd, $0, $1) }) != 0 {
            let code = errno
            close(fd)
            throw POSIXError(.init(rawValue: code) ?? .EIO)
        }
        guard withAddress(port: port, { connect(fd, $0, $1) }) == 0 else {
            let code = errno
            close(fd)
            throw POSIXError(.init(rawValue: code) ?? .EIO)
        }
        return fd
    }

    /// Calls `call` (bind, connect) with 127.0.0.1:`port` as its address and returns its result.
    static func withAddress(port: Int, host: String = "127.0.0.1", _ call: (UnsafePointer<sockaddr>, socklen_t) -> Int32) -> Int32 {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr = in_addr(s_addr: inet_addr(host))
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { call($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
    }
}
