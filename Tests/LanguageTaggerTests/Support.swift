import Foundation

/// One news item from Fixtures/samples.tsv: written for these tests, not copied from a feed.
struct Sample: Sendable, CustomStringConvertible {
    var language: String
    var title: String
    var summary: String
    var body: String

    var description: String { "\(language): \(title)" }
}

/// A short headline (2-6 words) from Fixtures/short_titles.tsv.
struct ShortTitle: Sendable, CustomStringConvertible {
    var language: String
    var title: String

    var description: String { "\(language): \(title)" }
}

enum Fixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    /// Tab-separated rows; lines starting with "#" are comments.
    static func rows(_ name: String) -> [[String]] {
        let url = directory.appendingPathComponent(name)
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return [] }
        return text.split(separator: "\n")
            .filter { !$0.hasPrefix("#") }
            .map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
    }

    static let samples: [Sample] = rows("samples.tsv").compactMap { fields in
        fields.count == 4 ? Sample(language: fields[0], title: fields[1], summary: fields[2], body: fields[3]) : nil
    }

    static let shortTitles: [ShortTitle] = rows("short_titles.tsv").compactMap { fields in
        fields.count == 2 ? ShortTitle(language: fields[0], title: fields[1]) : nil
    }

    static func samples(in language: String) -> [Sample] {
        samples.filter { $0.language == language }
    }
}

func isColumnCode(_ code: String) -> Bool {
    code.wholeMatch(of: /[a-z]{2}/) != nil
}
