import Testing
@testable import CanonicalURL

/// `removeDotSegments` returns a path untouched when no segment starts with "."; on random paths
/// it must still give RFC 3986 §5.2.4's output, written here over scalars as the RFC states it.
@Suite struct DotSegmentTests {
    static func reference(_ path: String) -> String {
        var input = Array(path.unicodeScalars)
        var output: [[Unicode.Scalar]] = []
        func starts(_ prefix: String) -> Bool { input.starts(with: Array(prefix.unicodeScalars)) }
        func equals(_ text: String) -> Bool { input == Array(text.unicodeScalars) }
        while !input.isEmpty {
            if starts("../") { input.removeFirst(3) }
            else if starts("./") { input.removeFirst(2) }
            else if starts("/./") { input.removeFirst(2) }
            else if equals("/.") { input = ["/"] }
            else if starts("/../") { input.removeFirst(3); if !output.isEmpty { output.removeLast() } }
            else if equals("/..") { input = ["/"]; if !output.isEmpty { output.removeLast() } }
            else if equals(".") || equals("..") { input = [] }
            else {
                let start = input.first == "/" ? 1 : 0
                let end = input[start...].firstIndex(of: "/") ?? input.count
                output.append(Array(input[..<end]))
                input.removeFirst(end)
            }
        }
        return String(String.UnicodeScalarView(output.flatMap { $0 }))
    }

    @Test func randomPathsFollowTheRFC() {
        let pieces = ["/", "a", ".", "..", "b.c", ".d", "%2E", "é", "//", "x."]
        var generator = SystemRandomNumberGenerator()  // a failure prints its case
        for _ in 0..<5_000 {
            let path = (0..<Int.random(in: 0...7, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            #expect(String(URIComponents.removeDotSegments(Substring(path))) == Self.reference(path), "\(path)")
        }
    }
}
