/// Token-level precision/recall/F1 over bags of lower-cased word tokens, the metric of the
/// public article-extraction benchmarks (order-insensitive, counts repeated tokens).
struct TokenScore: CustomStringConvertible {
    let precision: Double
    let recall: Double
    var f1: Double { precision + recall == 0 ? 0 : 2 * precision * recall / (precision + recall) }
    var description: String {
        "P=\(Self.format(precision)) R=\(Self.format(recall)) F1=\(Self.format(f1))"
    }
    static func format(_ value: Double) -> String { String(Double(Int(value * 1000)) / 1000) }
}

enum TokenF1 {
    static func tokens(_ text: String) -> [Substring] {
        text.lowercased().split { !($0.isLetter || $0.isNumber) }
    }

    static func score(extracted: String, expected: String) -> TokenScore {
        let got = tokens(extracted)
        let want = tokens(expected)
        guard !got.isEmpty, !want.isEmpty else { return TokenScore(precision: 0, recall: 0) }
        var counts: [Substring: Int] = [:]
        for token in want { counts[token, default: 0] += 1 }
        var overlap = 0
        for token in got where (counts[token] ?? 0) > 0 {
            counts[token]! -= 1
            overlap += 1
        }
        return TokenScore(precision: Double(overlap) / Double(got.count), recall: Double(overlap) / Double(want.count))
    }
}
