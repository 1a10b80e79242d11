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
    }

    /// The next queued datagram's exact bytes, or nil when none is queued. Never blocks: an AF_UNIX
    /// datagram is in the receive queue by the time the sender's sendto() returns, and tests run on
    /// Swift concurrency's small thread pool, which a blocking recv() would starve.
    func receive() -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 8192)
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        return count >= 0 ? Array(buffer[0..<count]) : nil
    }

    /// The next queued datagram as text.
    func receiveString() -> String? { receive().map { String(decoding: $0, as: UTF8.self) } }

    /// Waits (suspending, not blocking) for a datagram another task is going to send.
    func nextString(waitingUpTo limit: Duration = .seconds(5)) async -> String? {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if let text = receiveString() { return text }
            try? await Task.sleep(for: .milliseconds(1))
        }
        return nil
    }

    /// True when no further datagram is queued (peeks, so a queued one stays for receive()).
    func isDrained() -> Bool {
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, Int32(MSG_DONTWAIT) | Int32(MSG_PEEK)) < 0
    }

    /// Closes and unlinks the socket, like a manager that went away.
    func shutDown() {
        if fd >= 0 { close(fd) }
        fd = -1
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }

    deinit { shutDown() }
}
