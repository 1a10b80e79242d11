import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// HTTPS servers on 127.0.0.1 for the TLS tests: `Tests/TLS/tls_fixture.py` (Debian's python3 and
/// openssl) makes three private CAs and a leaf certificate per server in a fresh temporary folder,
/// so no key is ever committed, then serves each leaf on its own port. The script's docstring lists
/// the servers (`a`, `b`, `c`, `self`, `expired`, `wrong`) and the files.
///
/// Ready means listening: `init` returns once the script has printed its ports, which it does
/// after every server is bound. `stop()` ends the script by its pid and removes the folder; the
/// script also exits by itself when its standard input (this process's pipe) closes.
public final class LoopbackTLSServers: @unchecked Sendable {
    public let folder: URL
    public let ports: [String: Int]
    private let files: [String: String]
    private let process: Process
    private let input: Pipe

    public struct SetupError: Error, CustomStringConvertible {
        public let description: String
    }

    public static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Tests/TLS/tls_fixture.py").standardizedFileURL.path

    public init() throws {
        let python = "/usr/bin/python3"
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw SetupError(description: "\(python) is missing (.ci/install-deps --test installs python3 and openssl)")
        }
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("pulse-tls-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let errors = folder.appendingPathComponent("fixture.stderr")
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [Self.script, folder.path]
        input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: errors)
        try process.run()
        // One line, printed once every server listens; end of file first means the script failed.
        var line = Data()
        while !line.contains(0x0A) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        struct Ready: Decodable {
            let ports: [String: Int]
            let files: [String: String]
        }
        guard let ready = try? JSONDecoder().decode(Ready.self, from: line.prefix { $0 != 0x0A }) else {
            process.waitUntilExit()
            let message = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
            try? FileManager.default.removeItem(at: folder)
            throw SetupError(description: "tls_fixture.py did not start (status \(process.terminationStatus)): \(message)")
        }
        ports = ready.ports
        files = ready.files
    }

    /// `https://127.0.0.1:PORT` + `path` on the named server.
    public func url(_ server: String, _ path: String = "/feed.xml") -> String {
        "https://127.0.0.1:\(ports[server] ?? 0)\(path)"
    }

    /// One of the files the script made: `ca_a.pem`, `ca_b.pem`, `ca_c.pem`, `dir_a`, `dir_c`, `system`.
    public func file(_ name: String) -> String { files[name] ?? folder.appendingPathComponent(name).path }

    public func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
        process.waitUntilExit()
        try? input.fileHandleForWriting.close()
        try? FileManager.default.removeItem(at: folder)
    }
}
