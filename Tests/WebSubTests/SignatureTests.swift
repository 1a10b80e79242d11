import Foundation
import Testing

@testable import WebSub

/// `X-Hub-Signature` checks against RFC 4231's HMAC vectors and the verdicts the listener counts.
@Suite struct SignatureTests {
    // RFC 4231 test case 2: key "Jefe", data "what do ya want for nothing?".
    static let key = Array("Jefe".utf8)
    static let data = Array("what do ya want for nothing?".utf8)

    @Test func rfc4231Vectors() {
        #expect(HubSignature.header(algorithm: "sha256", body: Self.data, secret: Self.key)
            == "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        #expect(HubSignature.header(algorithm: "sha512", body: Self.data, secret: Self.key)?.hasPrefix(
            "sha512=164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea250554") == true)
        #expect(HubSignature.header(algorithm: "sha1", body: Self.data, secret: Self.key)
            == "sha1=effcdf6ae5eb2fa2d27416d5f184df9c259a7c79")
    }

    @Test(arguments: ["sha1", "sha256", "sha384", "sha512"])
    func everyAlgorithmVerifies(algorithm: String) throws {
        let header = try #require(HubSignature.header(algorithm: algorithm, body: Self.data, secret: Self.key))
        #expect(HubSignature.verify(header: header, body: Self.data, secret: Self.key) == .valid)
        #expect(HubSignature.verify(header: header.uppercased().replacingOccurrences(of: "SHA", with: "sha"),
                                    body: Self.data, secret: Self.key) == .valid)
        #expect(HubSignature.verify(header: header, body: Self.data + [0x20], secret: Self.key) == .mismatch)
        #expect(HubSignature.verify(header: header, body: Self.data, secret: Array("jefe".utf8)) == .mismatch)
    }

    @Test func missingAndMalformed() {
        #expect(HubSignature.verify(header: nil, body: Self.data, secret: Self.key) == .missing)
        #expect(HubSignature.verify(header: "md5=abcd", body: Self.data, secret: Self.key) == .malformed)
        #expect(HubSignature.verify(header: "sha256=xyz", body: Self.data, secret: Self.key) == .malformed)
        #expect(HubSignature.verify(header: "sha256", body: Self.data, secret: Self.key) == .malformed)
        // A truncated MAC is a mismatch, not a shorter comparison.
        let header = HubSignature.header(body: Self.data, secret: Self.key)!
        #expect(HubSignature.verify(header: String(header.dropLast(2)), body: Self.data, secret: Self.key) == .mismatch)
    }

    /// The MAC fed a body in pieces of any size is the MAC of the whole body.
    @Test func piecesGiveTheSameVerdict() throws {
        let body = Array((0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let header = try #require(HubSignature.header(algorithm: "sha512", body: body, secret: Self.key))
        for size in [1, 7, 4096, 10_000] {
            guard case .success(let verifier) = HubSignature.Verifier.start(header: header, secret: Self.key) else {
                Issue.record("no verifier")
                return
            }
            var offset = 0
            while offset < body.count {
                let end = min(offset + size, body.count)
                body[offset..<end].withUnsafeBytes { verifier.update($0) }
                offset = end
            }
            #expect(verifier.finish() == .valid, "pieces of \(size)")
        }
    }

    @Test func tokensCompareWhole() {
        let token = HubSignature.newSecret()
        #expect(HubSignature.sameToken(token, token))
        #expect(!HubSignature.sameToken(token, String(token.dropLast())))
        #expect(!HubSignature.sameToken(token, String(token.dropLast()) + "x"))
        #expect(!HubSignature.sameToken(nil, token))
        #expect(!HubSignature.sameToken("", ""))
    }

    @Test func secretsAre32RandomBytes() {
        let a = HubSignature.newSecret(), b = HubSignature.newSecret()
        #expect(a.utf8.count == 64 && HubSignature.hexBytes(a)?.count == 32)
        #expect(a != b)
    }

    @Test func formEncoding() {
        #expect(FormEncoding.encode([("hub.topic", "https://a.example/x?y=1&z"), ("k", "a b")])
            == "hub.topic=https%3A%2F%2Fa.example%2Fx%3Fy%3D1%26z&k=a+b")
    }

    @Test func renewalLeavesATenthOfTheLease() {
        let settings = WebSubSubscriber.Settings(callbackPrefix: "https://a.example/websub", leaseSeconds: 864_000)
        let now = Date(timeIntervalSince1970: 0)
        #expect(settings.renewAt(leaseSeconds: 864_000, from: now).timeIntervalSince1970 == 864_000 - 86_400)
        #expect(settings.renewAt(leaseSeconds: 600, from: now).timeIntervalSince1970 == 540)
        #expect(settings.renewAt(leaseSeconds: 100, from: now).timeIntervalSince1970 == 50)
    }
}
