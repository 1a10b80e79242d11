import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A bound AF_UNIX datagram socket standing in for systemd's notify socket. Written independently of
/// the module's address code so a wrong address length on the sending side cannot go unnoticed.
final class DatagramReceiver {
    private(set) var fd: Int32
    /// The value to put in NOTIFY_SOCKET.
    let notifySocket: String
    private let directory: URL?

    /// Binds to `<temp dir>/notify`.
    convenience init() throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("sdnotify-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("notify").path
        try self.init(sunPath: Array(path.utf8), notifySocket: path, directory: directory)
    }

    /// Binds to the abstract name `@pulse-test-<random>`.
    convenience init(abstract: Void) throws {
        let name = "pulse-test-\(UUID().uuidString)"
        try self.init(sunPath: [0] + Array(name.utf8), notifySocket: "@" + name, directory: nil)
    }

    private init(sunPath: [UInt8], notifySocket: String, directory: URL?) throws {
        self.notifySocket = notifySocket
        self.directory = directory
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        self.fd = fd
        guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: sunPath) }
        // Filesystem paths get their NUL counted; abstract names are exactly their bytes.
        let length = 2 + sunPath.count + (sunPath.first == 0 ? 0 : 1)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(length)) }
        }
        guard bound == 0 else {
            let code = errno
            throw POSIXError(.init(rawValue: code) ?? .EIO)
        }
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// The next datagram's exact bytes, or nil when none arrives within 2 s.
    func receive() -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 8192)
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        return count >= 0 ? Array(buffer[0..<count]) : nil
    }

    /// The next datagram as text.
    func receiveString() -> String? { receive().map { String(decoding: $0, as: UTF8.self) } }

    /// True when no further datagram is queued.
    func isDrained() -> Bool {
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, Int32(MSG_DONTWAIT)) < 0
    }

    /// Closes and unlinks the socket, like a manager that went away.
    func shutDown() {
        if fd >= 0 { close(fd) }
        fd = -1
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }

    deinit { shutDown() }
}
