import Glibc
import PulseModel
import TextSupport

/// The environment variables the fetcher reads: `PULSE_USER_AGENT`, `PULSE_RESOLVE`,
/// `PULSE_CA_FILE` and `PULSE_CA_PATH`. Part of `EnvironmentSettings`, and read on its own by the
/// dump modes, which fetch like the service but need no database (so an unrelated variable such as
/// `DATABASE_URL` cannot stop them).
public struct FetchEnvironment: Sendable, Equatable {
    /// `PULSE_USER_AGENT`, overriding `fetch.user_agent` when set.
    public var userAgent: String?
    /// `PULSE_RESOLVE`: curl `--resolve` pins (`host:port:address`, comma-separated) for names that
    /// should reach a given address (split-horizon setups, the loopback demo). The address is still
    /// checked by the SSRF policy when the connection is made.
    public var resolve: [String] = []
    /// `PULSE_CA_FILE`: a PEM bundle of CA certificates (libcurl's CAINFO), checked readable at start.
    public var caFile: String?
    /// `PULSE_CA_PATH`: a folder of CA certificates under their hashed names (libcurl's CAPATH).
    public var caPath: String?

    /// A CA bundle bigger than this is not one (Debian's whole bundle is about 200 KiB).
    static let maxCAFileBytes = 16 * 1024 * 1024

    public init() {}

    /// Reads the four variables (empty ones count as unset); every invalid one is reported in one
    /// `EnvironmentError`.
    public init(lookup: (String) -> String?) throws {
        var problems: [EnvironmentError.Problem] = []
        self.init(lookup: { lookup($0).flatMap { $0.isEmpty ? nil : $0 } }, problems: &problems)
        if !problems.isEmpty { throw EnvironmentError(problems: problems) }
    }

    /// `lookup` gives each variable's value, empty ones already treated as unset.
    init(lookup value: (String) -> String?, problems: inout [EnvironmentError.Problem]) {
        userAgent = value("PULSE_USER_AGENT")
        if let agent = userAgent, let problem = userAgentProblem(agent) {
            problems.append(.init(variable: "PULSE_USER_AGENT", message: problem))
            userAgent = nil
        }
        if let pins = value("PULSE_RESOLVE") {
            resolve = pins.split(separator: ",").map { TextScan.trimming($0, while: TextScan.isBlank) }.filter { !$0.isEmpty }
            if let bad = resolve.first(where: { !Self.isResolvePin($0) }) {
                problems.append(.init(variable: "PULSE_RESOLVE",
                                      message: "'\(bad)' is not host:port:address (for example news.example:443:192.0.2.10)"))
                resolve = []
            }
        }
        caFile = value("PULSE_CA_FILE")
        if let path = caFile, let problem = Self.caFileProblem(path) {
            problems.append(.init(variable: "PULSE_CA_FILE", message: problem))
            caFile = nil
        }
        caPath = value("PULSE_CA_PATH")
        if let path = caPath, let problem = Self.caPathProblem(path) {
            problems.append(.init(variable: "PULSE_CA_PATH", message: problem))
            caPath = nil
        }
    }

    /// `host:port:address` with a DNS name, a port and an IPv4 or bracketed IPv6 address.
    static func isResolvePin(_ pin: String) -> Bool {
        let parts = pin.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, let port = Int(parts[1]), (1...65_535).contains(port) else { return false }
        let host = parts[0], address = parts[2]
        let hostOK = !host.isEmpty && host.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") }
        let v4 = address.split(separator: ".").count == 4 && address.allSatisfy { $0.isNumber || $0 == "." }
        let v6 = address.hasPrefix("[") && address.hasSuffix("]") && address.dropFirst().dropLast().allSatisfy { $0.isHexDigit || $0 == ":" }
        return hostOK && (v4 || v6)
    }

    /// Read whole here, so that a missing, unreadable or wrong file stops the start instead of
    /// failing every https fetch later with libcurl's "error setting certificate file".
    static func caFileProblem(_ path: String) -> String? {
        switch LocalFile.contents(of: path, limit: maxCAFileBytes) {
        case .failure(.unreadable(let code)):
            return "'\(FieldRules.printable(path))' cannot be read: \(readFailureReason(code))"
        case .failure(.tooLarge(let limit)):
            return "'\(FieldRules.printable(path))' is larger than \(limit >> 20) MiB: not a CA bundle"
        case .success(let bytes):
            return TextScan.contains(String(decoding: bytes, as: UTF8.self), "-----BEGIN CERTIFICATE-----") ? nil
                : "'\(FieldRules.printable(path))' holds no PEM certificate (no -----BEGIN CERTIFICATE----- line)"
        }
    }

    /// OpenSSL looks a CA up in this folder by its subject hash (`HASH.0`), so a folder of
    /// certificates under other names is silently useless: refused with the command that fixes it.
    static func caPathProblem(_ path: String) -> String? {
        guard let folder = opendir(path) else {
            let code = errno
            return "'\(FieldRules.printable(path))' " + (code == ENOTDIR ? "is not a folder"
                : "cannot be read: \(readFailureReason(code))")
        }
        defer { closedir(folder) }
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if isHashedName(name) { return nil }
        }
        return "'\(FieldRules.printable(path))' holds no certificate under a hashed name (HASH.0): "
            + "run `openssl rehash \(FieldRules.printable(path))`"
    }

    /// `3387b84d.0`: eight hex digits, a dot, a number.
    static func isHashedName(_ name: String) -> Bool {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 2 && parts[0].utf8.count == 8 && parts[0].allSatisfy(\.isHexDigit)
            && !parts[1].isEmpty && parts[1].allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// The `NAME=value` parts of `EnvironmentSettings.description`.
    var descriptionParts: [String] {
        ["PULSE_USER_AGENT=\(userAgent ?? "<default>")",
         "PULSE_RESOLVE=\(resolve.isEmpty ? "<unset>" : resolve.joined(separator: ","))",
         "PULSE_CA_FILE=\(caFile ?? "<unset>")", "PULSE_CA_PATH=\(caPath ?? "<unset>")"]
    }
}
