import CLibCrypto
import TextSupport

/// `X-Hub-Signature: method=hex` (W3C WebSub 8): an HMAC of the raw body with the subscription's
/// secret. sha256 is what current hubs send; sha1, sha384 and sha512 are accepted as the spec
/// allows. The MAC is computed while the body arrives (`Verifier`), so a push is never held
/// whole before its header has been checked; the comparison runs in constant time.
public enum HubSignature {
    public enum Verdict: String, Sendable, Equatable {
        case valid
        /// No header: the push is not from our hub (or our subscription has no secret).
        case missing = "missing_signature"
        /// An algorithm the spec does not name, or a malformed value.
        case malformed = "malformed_signature"
        case mismatch = "bad_signature"
    }

    /// One body's check: made from the header before the body is read, fed the body's pieces,
    /// then asked for the verdict once.
    public final class Verifier {
        private var context: OpaquePointer?
        private let given: [UInt8]

        /// The verifier for `header`, or why the push cannot be authenticated at all.
        public static func start(header: String?, secret: [UInt8]) -> Result<Verifier, VerdictError> {
            guard let header else { return .failure(VerdictError(verdict: .missing)) }
            let parts = header.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, let algorithm = algorithms[parts[0].lowercased()], let given = hexBytes(parts[1]),
                  let context = secret.withUnsafeBytes({ pulse_hmac_begin(algorithm, $0.baseAddress, $0.count) })
            else { return .failure(VerdictError(verdict: .malformed)) }
            return .success(Verifier(context: context, given: given))
        }

        private init(context: OpaquePointer, given: [UInt8]) {
            self.context = context
            self.given = given
        }

        deinit { if let context { pulse_hmac_discard(context) } }

        public func update(_ bytes: UnsafeRawBufferPointer) {
            guard let context, bytes.count > 0 else { return }
            _ = pulse_hmac_update(context, bytes.baseAddress, bytes.count)
        }

        public func finish() -> Verdict {
            guard let context else { return .malformed }
            self.context = nil
            var mac = [UInt8](repeating: 0, count: 64)
            let length = mac.withUnsafeMutableBufferPointer { pulse_hmac_finish(context, $0.baseAddress) }
            guard length > 0 else { return .malformed }
            guard given.count == length else { return .mismatch }
            let same = given.withUnsafeBytes { a in mac.withUnsafeBytes { b in
                pulse_memcmp_const(a.baseAddress, b.baseAddress, length) == 0
            } }
            return same ? .valid : .mismatch
        }
    }

    public struct VerdictError: Error, Sendable { public let verdict: Verdict }

    public static func verify(header: String?, body: [UInt8], secret: [UInt8]) -> Verdict {
        switch Verifier.start(header: header, secret: secret) {
        case .failure(let refusal): return refusal.verdict
        case .success(let verifier):
            body.withUnsafeBytes { verifier.update($0) }
            return verifier.finish()
        }
    }

    /// `sha256=<hex>` of `body` (what a hub sends; the tests' and the bench's hub use it).
    public static func header(algorithm: String = "sha256", body: [UInt8], secret: [UInt8]) -> String? {
        guard let code = algorithms[algorithm],
              let context = secret.withUnsafeBytes({ pulse_hmac_begin(code, $0.baseAddress, $0.count) }) else { return nil }
        body.withUnsafeBytes { _ = pulse_hmac_update(context, $0.baseAddress, $0.count) }
        var mac = [UInt8](repeating: 0, count: 64)
        let length = mac.withUnsafeMutableBufferPointer { pulse_hmac_finish(context, $0.baseAddress) }
        return length == 0 ? nil : algorithm + "=" + hex(Array(mac.prefix(length)))
    }

    static let algorithms: [String: Int32] = ["sha1": 1, "sha256": 256, "sha384": 384, "sha512": 512]

    public static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes { out.append(digits[Int(byte >> 4)]); out.append(digits[Int(byte & 15)]) }
        return String(decoding: out, as: UTF8.self)
    }

    public static func hexBytes<S: StringProtocol>(_ text: S) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard !utf8.isEmpty, utf8.count % 2 == 0, utf8.count <= 256 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(utf8.count / 2)
        var index = 0
        while index < utf8.count {
            guard let high = TextScan.hexDigitValue(utf8[index]), let low = TextScan.hexDigitValue(utf8[index + 1])
            else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }

    /// 32 bytes from the system's CSPRNG (getrandom on Linux), as hex: a new subscription's secret
    /// and its callback token.
    public static func newSecret() -> String {
        var generator = SystemRandomNumberGenerator()
        return hex((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// Whether `given` is `expected`, in time that does not depend on where they differ.
    public static func sameToken(_ expected: String?, _ given: String) -> Bool {
        guard let expected else { return false }
        let a = Array(expected.utf8), b = Array(given.utf8)
        guard a.count == b.count, !a.isEmpty else { return false }
        return a.withUnsafeBytes { x in b.withUnsafeBytes { y in pulse_memcmp_const(x.baseAddress, y.baseAddress, a.count) == 0 } }
    }
}
