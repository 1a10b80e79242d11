import Foundation

/// A child process run to its end with its output captured: how the tests run the built binary.
public struct ProcessRun: Sendable {
    public let status: Int32
    public let stdout: String
    public let stderr: String

    /// Runs `executable` with exactly `environment` (in `folder` when given) and waits for its end.
    /// Blocking: call it off the concurrency pool.
    public init(_ executable: String, _ arguments: [String], environment: [String: String], in folder: URL? = nil) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        if let folder { process.currentDirectoryURL = folder }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        status = process.terminationStatus
        self.stdout = String(decoding: stdout, as: UTF8.self)
        self.stderr = String(decoding: stderr, as: UTF8.self)
    }
}
