import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A private cluster through the same script `make test` uses, in a temporary folder, for tests
/// that stop their database or need a fresh cluster.
public struct PrivateCluster: Sendable {
    public let root: String
    public let port: Int

    public static func make() throws -> PrivateCluster {
        let root = "/tmp/pulse-outage-\(UUID().uuidString.prefix(8))"
        return PrivateCluster(root: root, port: Int.random(in: portsOutsideTheEphemeralRange()))
    }

    /// The cluster is stopped and started again on the same port while the daemon keeps
    /// connecting to it. Inside the kernel's ephemeral range (`ip_local_port_range`, 32768-60999
    /// here) an outgoing connection of this or another test could be given that port as its
    /// local end (a connect to a closed loopback port can even connect to itself), and the
    /// restart then fails with "Address already in use": once in 19 `make test` runs with
    /// 55000-56999. Below the range no client socket takes it.
    public static func portsOutsideTheEphemeralRange() -> Range<Int> {
        let bounds = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8))?
            .split(whereSeparator: \.isWhitespace).compactMap { Int($0) } ?? []
        let low = bounds.first ?? 32_768, high = bounds.count > 1 ? bounds[1] : 60_999
        if low >= 22_000 { return 20_000..<min(low, 30_000) }
        return (high + 1)..<max(high + 2, 65_000)
    }

    /// posix_spawn and waitpid, not Foundation's Process: its exit monitoring missed this
    /// short-lived child under the test runner and `waitUntilExit` never returned.
    public func run(_ command: String) async throws {
        try await offThePool { try runBlocking(command) }
    }

    private func runBlocking(_ command: String) throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".ci/local-postgres").path
        var environment = ProcessInfo.processInfo.environment
        environment["PULSE_PG_ROOT"] = root
        environment["PULSE_PG_PORT"] = String(port)
        // posix_spawn_file_actions_addclosefrom_np is not visible from Swift: bash closes
        // every other descriptor in the child before running the script.
        let closeOthers = #"for fd in /proc/self/fd/*; do n=${fd##*/}; [ "$n" -gt 2 ] && eval "exec $n>&-" 2>/dev/null; done; exec /bin/bash "$0" "$1""#
        let argv = ["/bin/bash", "-c", closeOthers, script, command]
        let envp = environment.map { "\($0.key)=\($0.value)" }
        var cArgv = argv.map { strdup($0) } + [nil]
        var cEnvp = envp.map { strdup($0) } + [nil]
        defer { (cArgv + cEnvp).forEach { free($0) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // Only its own stdio: the cluster this starts outlives the call, and an inherited
        // descriptor (another test's pipe to a child) would keep that pipe open for good
        // (a parallel test's promtool then never saw the end of its input).
        let logPath = "/tmp/pulse-outage-\(port).log"
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, logPath, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var pid: pid_t = 0
        guard posix_spawn(&pid, argv[0], &actions, nil, &cArgv, &cEnvp) == 0 else {
            throw TestSetupError("could not start local-postgres \(command)")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        guard status == 0 else {
            let output = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
            throw TestSetupError("local-postgres \(command) exited with status \(status) (root \(root)): \(output.suffix(500))")
        }
    }

    public var url: String {
        get throws {
            let password = try String(contentsOfFile: root + "/password", encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            return "postgresql://pulse:\(password)@127.0.0.1:\(port)/pulse"
        }
    }

    public func destroy() {
        try? runBlocking("stop")
        try? FileManager.default.removeItem(atPath: root)
        try? FileManager.default.removeItem(atPath: "/tmp/pulse-outage-\(port).log")
    }
}
