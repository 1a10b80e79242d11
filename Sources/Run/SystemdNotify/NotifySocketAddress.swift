import Glibc

/// Where `NOTIFY_SOCKET` points: a filesystem path ("/run/systemd/notify") or a Linux
/// abstract-namespace name ("@/org/freedesktop/systemd1/notify/..."), as sd_notify(3) accepts.
/// Other forms (relative paths, "vsock:" from systemd >= 254) are refused, so the notifier is off.
struct NotifySocketAddress: Sendable, Equatable {
    /// The bytes that go into `sun_path`, without a terminating NUL. For an abstract address the
    /// leading NUL is included and replaces the '@'.
    let pathBytes: [UInt8]
    let isAbstract: Bool

    /// `sun_path` holds 108 bytes; a path needs one more for its NUL.
    static let sunPathCapacity = MemoryLayout.size(ofValue: sockaddr_un().sun_path)

    init?(_ value: String) {
        let bytes = Array(value.utf8)
        guard let first = bytes.first, !bytes.contains(0) else { return nil }
        switch first {
        case UInt8(ascii: "/"):
            guard bytes.count < Self.sunPathCapacity else { return nil }
            pathBytes = bytes
            isAbstract = false
        case UInt8(ascii: "@"):
            guard bytes.count >= 2, bytes.count <= Self.sunPathCapacity else { return nil }
            pathBytes = [0] + bytes.dropFirst()
            isAbstract = true
        default:
            return nil
        }
    }

    /// Calls `body` with a filled `sockaddr_un` and the length to pass to `sendto`/`bind`.
    /// An abstract name's length counts exactly its bytes (the kernel compares all of them,
    /// trailing NULs included), so the length must not be `sizeof(sockaddr_un)`.
    func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: pathBytes)
        }
        let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path) ?? 2
        let length = pathOffset + pathBytes.count + (isAbstract ? 0 : 1)
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(length)) }
        }
    }
}
