import AddressPolicy
import CCurl
import Glibc

/// Reads the address out of libcurl's `curl_sockaddr` and opens the socket libcurl asked for.
enum SocketAddress {
    static func ipAddress(_ address: UnsafeMutablePointer<curl_sockaddr>) -> IPAddress? {
        guard let offset = MemoryLayout<curl_sockaddr>.offset(of: \curl_sockaddr.addr) else { return nil }
        let raw = UnsafeRawPointer(address) + offset
        let length = Int(address.pointee.addrlen)
        switch address.pointee.family {
        case AF_INET:
            guard length >= MemoryLayout<sockaddr_in>.size else { return nil }
            let sin = raw.loadUnaligned(as: sockaddr_in.self)
            return .v4(UInt32(bigEndian: sin.sin_addr.s_addr))
        case AF_INET6:
            guard length >= MemoryLayout<sockaddr_in6>.size,
                  let addrOffset = MemoryLayout<sockaddr_in6>.offset(of: \sockaddr_in6.sin6_addr)
            else { return nil }
            var value: UInt128 = 0
            for i in 0..<16 {
                value = value << 8 | UInt128(raw.load(fromByteOffset: addrOffset + i, as: UInt8.self))
            }
            return .v6(value)
        default:
            return nil
        }
    }

    static func openSocket(_ address: UnsafeMutablePointer<curl_sockaddr>) -> curl_socket_t {
        let fd = socket(address.pointee.family, address.pointee.socktype, address.pointee.protocol)
        return fd < 0 ? CURL_SOCKET_BAD : fd
    }
}
