// `make bench-language`: accuracy of the stored-language rule (CLD2's own is_reliable, else the
// source's language) on labelled texts we wrote, in sources of their own language, of another
// and mixed. Accuracy, not speed: it prints, it never fails a build.
//
//   language-bench FILE.tsv ...   (rows: lang<TAB>title[<TAB>summary<TAB>body]; "#" starts a comment)
import Foundation
import LanguageTagger

struct Item {
    enum Length: String, CaseIterable { case short, medium, long }
    var truth: String
    var title: String
    var summary: String?
    var body: String?
    var length: Length
}

func load(_ paths: [String]) -> [Item] {
    var items: [Item] = []
    for path in paths {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            FileHandle.standardError.write(Data("language-bench: cannot read \(path)\n".utf8))
            exit(65)
        }
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            switch fields.count {
            case 2:
                items.append(Item(truth: fields[0], title: fields[1], length: .short))
            case 4:
                items.append(Item(truth: fields[0], title: fields[1], length: .short))
                items.append(Item(truth: fields[0], title: fields[1], summary: fields[2], length: .medium))
                items.append(Item(truth: fields[0], title: fields[1], summary: fields[2], body: fields[3], length: .long))
            default:
                FileHandle.standardError.write(Data("language-bench: \(path): a row needs 2 or 4 fields\n".utf8))
                exit(65)
            }
        }
    }
    return items
}

func stored(_ item: Item, configured: String) -> String {
    LanguageTagger.decide(title: item.title, summary: item.summary, body: item.body, configured: configured,
                          detectionEnabled: true).code
}

/// A wrong source language for `truth`, deterministic: the next of the big four.
func foreignSource(for truth: String) -> String {
    truth == "en" ? "pt" : "en"
}

let paths = Array(CommandLine.arguments.dropFirst())
guard !paths.isEmpty else {
    FileHandle.standardError.write(Data("usage: language-bench FILE.tsv ...\n".utf8))
    exit(64)
}
let items = load(paths)
let languages = Set(items.map(\.truth)).sorted()
func accuracy(_ cases: [(Item, String)]) -> Double {
    guard !cases.isEmpty else { return .nan }
    let right = cases.filter { stored($0.0, configured: $0.1) == $0.0.truth }.count
    return Double(right) / Double(cases.count)
}
func row(_ label: String, _ cases: [(Item, String)]) {
    print(label.padding(toLength: 40, withPad: " ", startingAt: 0) + String(format: "%6d  %8.3f", cases.count, accuracy(cases)))
}

print("Language rule on \(items.count) labelled texts in \(languages.count) languages (\(languages.joined(separator: " ")))")
print("case".padding(toLength: 40, withPad: " ", startingAt: 0) + " texts  accuracy")
for length in Item.Length.allCases {
    row("own-language source, \(length.rawValue)", items.filter { $0.length == length }.map { ($0, $0.truth) })
}
row("own-language source, all", items.map { ($0, $0.truth) })
for length in Item.Length.allCases {
    row("foreign source, \(length.rawValue)", items.filter { $0.length == length }.map { ($0, foreignSource(for: $0.truth)) })
}
row("foreign source, all", items.map { ($0, foreignSource(for: $0.truth)) })

// Mixed feeds: for each source language, its own items plus foreign ones making up 20% of the feed.
var mixedAll: [(Item, String)] = []
var perSource: [(String, [(Item, String)])] = []
for source in languages {
    let own = items.filter { $0.truth == source }
    let foreign = items.filter { $0.truth != source }
    let wanted = max(1, own.count / 4)
    let step = max(1, foreign.count / wanted)
    let picked = stride(from: 0, to: foreign.count, by: step).prefix(wanted).map { foreign[$0] }
    let feed = (own + picked).map { ($0, source) }
    perSource.append((source, feed))
    mixedAll += feed
}
row("mixed feeds (20% foreign), all", mixedAll)
let worst = perSource.map { (source: $0.0, accuracy: accuracy($0.1)) }.min { $0.accuracy < $1.accuracy }!
print("  worst mixed source: \(worst.source) \(String(format: "%.3f", worst.accuracy))")
row("mixed feeds, short texts only", mixedAll.filter { $0.0.length == .short })

// What goes wrong: a stored language that is neither the truth nor the source's (a wrong
// detection trusted), and the most common confusions.
var confusions: [String: Int] = [:]
var trustedWrong = 0
for (item, source) in mixedAll + items.map({ ($0, foreignSource(for: $0.truth)) }) {
    let code = stored(item, configured: source)
    if code != item.truth {
        confusions["\(item.truth)->\(code)", default: 0] += 1
        if code != source { trustedWrong += 1 }
    }
}
let top = confusions.sorted { $0.value > $1.value }.prefix(6).map { "\($0.key) \($0.value)" }
print("wrong detections trusted \(trustedWrong); top confusions: \(top.joined(separator: ", "))")
