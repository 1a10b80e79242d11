import Foundation
import Testing
@testable import CanonicalURL

/// The obfuscated-IPv4 check folds hosts with a table instead of Foundation's NFKC (the service
/// does not link swift-corelibs-foundation). The tests link it, so they hold the table to it.
@Suite struct CompatibilityASCIITests {
    /// NFKC's form of `scalar` when it is made only of ASCII letters, digits and full stops and
    /// differs from the scalar, else nil: exactly what the table must list.
    private static func asciiNFKC(_ scalar: Unicode.Scalar) -> String? {
        let form = String(scalar).precomposedStringWithCompatibilityMapping
        guard form != String(scalar), !form.isEmpty, form.unicodeScalars.allSatisfy({
            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == ".")
        }) else { return nil }
        return form
    }

    @Test func tableMatchesFoundationNFKC() {
        var mismatches: [String] = []
        var listed = 0
        for value in UInt32(0x80)...0x1FFFF {
            guard let scalar = Unicode.Scalar(value), value != 0x3002, value != 0xFF61 else { continue }
            let expected = Self.asciiNFKC(scalar)
            let folded = CompatibilityASCII.form(of: scalar)
            if expected != nil { listed += 1 }
            if folded != expected, mismatches.count < 20 {
                mismatches.append("U+\(String(value, radix: 16, uppercase: true)): table \(folded ?? "nil"), NFKC \(expected ?? "nil")")
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches)")
        #expect(listed == 1_215)  // the generated table's size; a new Unicode version changes it
    }

    @Test func ideographicFullStopsAreDots() {
        #expect(CompatibilityASCII.fold("１２７。０｡０．１") == "127.0.0.1")
    }

    @Test func foldsOnlyListedScalars() {
        #expect(CompatibilityASCII.fold("café.例え.①²𝟑") == "café.例え.123")
        #expect(CompatibilityASCII.fold("plain.example") == "plain.example")
    }
}
