import CLibCrypto

/// `X-Hub-Signature: method=hex` (W3C WebSub 8): an HMAC of the raw body with the subscription's
/// secret. sha256 is what current hubs send; sha1, sha384 and sha512 are accepted as the spec
/// allows. The comparison runs in constant time.
public enum HubSignature {
    public enum Verdict: String, Sendable, Equatable {
        case valid
        /// No header: the push is not from our hub (or our subscription has no secret).
        case missing = "missing_signature"
        /// An algorithm the spec does not name, or a malformed value.
        case malformed = "malformed_signature"
        case mismatch = "bad_signature"
    }

    public static func verify(header: String?, body: [UInt8], secret: [UInt8]) -> Verdict {
        guard let header else { return .missing }
        let parts = header.split(separator: "=", maxSplits: 1)
        guard parts.count == 2, let algorithm = algorithms[parts[0].lowercased()],
              let given = hexBytes(parts[1]) else { return .malformed }
        guard let expected = mac(algorithm: algorithm, key: secret, body: body) else { return .malformed }
        guard given.count == expected.count else { return .mismatch }
        let same = given.withUnsafeBytes { a in expected.withUnsafeBytes { b in
            pulse_memcmp_const(a.baseAddress, b.baseAddress, a.count) == 0
        } }
        return same ? .valid : .mismatch
    }

    /// `sha256=<hex>` of `body` (what a hub sends; the tests' and the bench's hub use it).
    public static func header(algorithm: String = "sha256", body: [UInt8], secret: [UInt8]) -> String? {
        guard let code = algorithms[algorithm], let mac = mac(algorithm: code, key: secret, body: body) else { return nil }
        return algorithm + "=" + hex(mac)
    }

    static let algorithms: [String: Int32] = ["sha1": 1, "sha256": 256, "sha384": 384, "sha512": 512]

    static func mac(algorithm: Int32, key: [UInt8], body: [UInt8]) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: 64)
        let length = key.withUnsafeBytes { k in body.withUnsafeBufferPointer { b in
            out.withUnsafeMutableBufferPointer { o in
                pulse_hmac(algorithm, k.baseAddress, Int32(k.count), b.baseAddress, b.count, o.baseAddress)
            }
        } }
        return length == 0 ? nil : Array(out.prefix(Int(length)))
    }

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
        func nibble(_ c: UInt8) -> UInt8? {
            switch c {
            case 0x30...0x39: c - 0x30
            case 0x61...0x66: c - 0x61 + 10
            case 0x41...0x46: c - 0x41 + 10
            default: nil
            }
        }
        var out = [UInt8]()
        out.reserveCapacity(utf8.count / 2)
        var index = 0
        while index < utf8.count {
            guard let high = nibble(utf8[index]), let low = nibble(utf8[index + 1]) else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }

    /// A new subscription's secret: 32 bytes from the system's CSPRNG (getrandom on Linux), as hex.
    public static func newSecret() -> String {
        var generator = SystemRandomNumberGenerator()
        return hex((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }
}
