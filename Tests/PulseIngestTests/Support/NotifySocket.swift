import Foundation
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A test-side NOTIFY_SOCKET: an AF_UNIX datagram socket in a temp folder that collects what the
/// service sends.
final class NotifySocket {
    let path: String
    private let fd: Int32

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("notify-\(UUID().uuidString.prefix(8)).sock").path
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.utf8.enumerated() where index < buffer.count - 1 { buffer[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard fd >= 0, bound == 0 else { throw TestSetupError("cannot bind \(path)") }
    }

    /// Messages received until one contains `needle` or the timeout passes (all of them returned).
    /// Suspends between non-blocking reads, so a long wait holds no thread of the cooperative pool.
    func waitFor(_ needle: String, timeout: Duration) async -> [String] {
        var messages: [String] = []
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            guard count > 0 else {
                try? await Task.sleep(for: .milliseconds(20))
                continue
            }
            let message = String(decoding: buffer[..<count], as: UTF8.self)
            messages.append(message)
            if message.contains(needle) { break }
        }
        return messages
    }

    deinit {
        close(fd)
        unlink(path)
    }
}

/// The pulse-ingest binary `swift test` built next to the tests.
func builtBinary() throws -> String {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    for candidate in [".build/debug/pulse-ingest", ".build/x86_64-unknown-linux-gnu/debug/pulse-ingest"] {
        let path = root.appendingPathComponent(candidate).path
        if FileManager.default.isExecutableFile(atPath: path) { return path }
    }
    throw TestSetupError("pulse-ingest is not built under \(root.path)/.build/debug (run `swift build` first)")
}
