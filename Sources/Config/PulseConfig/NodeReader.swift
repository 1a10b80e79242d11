import Yams

// Reads the tree Yams composed (not Codable) so every value keeps its line number and unknown keys
// can be reported. All problems are collected in `Diagnostics` instead of thrown, so one run
// reports everything that is wrong with a file.

/// Collects issues for one file. Internal, single-threaded, lives for one parse.
final class Diagnostics {
    let file: String
    /// The file's line for each line of the YAML read, when that YAML stands for another file's
    /// rows (`SourceTable`); nil when the YAML is the file.
    private let lines: [Int]?
    private(set) var issues: [ConfigIssue] = []

    init(file: String, lines: [Int]? = nil) {
        self.file = file
        self.lines = lines
    }

    /// The file's line of a node at `mark`.
    func line(_ mark: Mark?) -> Int? {
        guard let line = mark?.line, let lines else { return mark?.line }
        return lines.indices.contains(line - 1) ? lines[line - 1] : nil
    }

    func error(_ message: String, at mark: Mark?, source: String? = nil) {
        issues.append(ConfigIssue(file: file, line: line(mark), source: source, message: message))
    }
}

/// Rejects YAML anchors/aliases: they are never needed in this file, and refusing them rules
/// out "billion laughs" style expansion when the tree is walked.
func rejectingAnchors(_ node: Node, _ diag: Diagnostics, source: String?) -> Node? {
    if node.anchor != nil {
        diag.error("YAML anchors and aliases (&name / *name) are not supported", at: node.mark, source: source)
        return nil
    }
    return node
}

/// A YAML mapping whose keys were checked against the allowed set.
struct MappingView {
    struct Entry {
        let key: String
        let keyMark: Mark?
        let value: Node
    }

    let section: String
    let mark: Mark?
    let source: String?
    /// A list, not a dictionary: a mapping has at most a dozen keys, and hashing each was a tenth
    /// of reading the file.
    private let entries: [Entry]
    private let diag: Diagnostics

    /// Returns nil (after reporting) when `node` is not a mapping.
    init?(_ node: Node, section: String, allowedKeys: [String], source: String? = nil, _ diag: Diagnostics) {
        guard let node = rejectingAnchors(node, diag, source: source) else { return nil }
        guard let mapping = node.mapping else {
            diag.error("'\(section)' must be a mapping of keys to values", at: node.mark, source: source)
            return nil
        }
        self.section = section
        self.mark = node.mark
        self.source = source
        self.diag = diag
        var entries: [Entry] = []
        entries.reserveCapacity(mapping.count)
        for index in mapping.indices {
            let (keyNode, value) = mapping[index]
            guard let keyScalar = keyNode.scalar, keyNode.anchor == nil else {
                diag.error("keys in '\(section)' must be plain strings", at: keyNode.mark, source: source)
                continue
            }
            let key = keyScalar.string
            // Allowed keys first: no allowed key looks like a secret, and the secret and
            // did-you-mean checks (string searches, edit distances) were most of --check-config's
            // time when run on every key of every source.
            if allowedKeys.contains(key) {
                // Duplicate keys never get here: composing rejects them as a syntax error.
                entries.append(Entry(key: key, keyMark: keyNode.mark, value: value))
            } else {
                diag.error(Self.unknownKeyProblem(key, section: section, allowedKeys: allowedKeys),
                           at: keyNode.mark, source: source)
            }
        }
        self.entries = entries
    }

    /// Why `key` (not one of `allowedKeys`) is refused: a secret, or unknown (with a did-you-mean).
    static func unknownKeyProblem(_ key: String, section: String, allowedKeys: [String]) -> String {
        if isSecretKey(key) {
            return "'\(key)' is not allowed: secrets never come from the configuration file; "
                + "set the DATABASE_URL environment variable instead"
        }
        var message = "unknown key '\(key)' in '\(section)'"
        if let suggestion = closestKey(to: key, in: allowedKeys) {
            message += " (did you mean '\(suggestion)'?)"
        }
        return message
    }

    /// By index: `first(where:)` copied every entry it looked at (a key, a node, a mark).
    private func entry(_ key: String) -> Entry? {
        for index in entries.indices where entries[index].key == key { return entries[index] }
        return nil
    }

    func has(_ key: String) -> Bool { entry(key) != nil }

    /// The scalar text as written, without any checks (for cross-entry comparisons).
    func rawScalar(_ key: String) -> String? { entry(key)?.value.scalar?.string }

    func mark(of key: String) -> Mark? {
        guard let entry = entry(key) else { return mark }
        return entry.value.mark ?? entry.keyMark ?? mark
    }

    /// The value node, or nil when absent or explicitly null (`key:` / `key: ~`).
    func node(_ key: String) -> Node? {
        guard let entry = entry(key) else { return nil }
        // An alias is marked where its anchor is (before its key): refused even when that is a null.
        let isAlias = entry.value.anchor != nil && precedes(entry.value.mark, entry.keyMark)
        if !isAlias, let scalar = entry.value.scalar, scalar.style == .plain, Self.isNullSpelling(scalar.string) {
            return nil
        }
        return rejectingAnchors(entry.value, diag, source: source)
    }

    /// The plain scalars YAML reads as null, as Yams' `Node.null` lists them (which answers with
    /// an `NSNull`, for a few percent of reading the file). A switch, not a static `Set`: the set's
    /// first use (its metadata and `Hashable` lookup) and a hash per value cost more than five
    /// comparisons.
    static func isNullSpelling(_ text: String) -> Bool {
        switch text {
        case "", "~", "null", "Null", "NULL": return true
        default: return false
        }
    }

    func requireNode(_ key: String) -> Node? {
        guard let value = node(key) else {
            if entry(key) == nil {
                diag.error("missing required key '\(key)' in '\(section)'", at: mark, source: source)
            } else {
                diag.error("'\(key)' must not be empty", at: mark(of: key), source: source)
            }
            return nil
        }
        return value
    }

    /// A scalar string value. `required` reports absence; otherwise absence yields nil silently.
    func string(_ key: String, required: Bool) -> String? {
        guard let value = required ? requireNode(key) : node(key) else { return nil }
        guard let scalar = value.scalar else {
            diag.error("'\(key)' must be a single value, not a list or mapping", at: value.mark, source: source)
            return nil
        }
        return scalar.string
    }

    func int(_ key: String, default fallback: Int, range: ClosedRange<Int>) -> Int {
        number(key, default: fallback, range: range, kind: "a whole number",
               bounds: "between \(range.lowerBound) and \(range.upperBound)", show: { "\($0)" },
               parse: { plainDecimal($0.string) ?? yamlInt($0) })
    }

    func double(_ key: String, default fallback: Double, range: ClosedRange<Double>) -> Double {
        number(key, default: fallback, range: range, kind: "a number",
               bounds: "greater than 0 and at most \(formatNumber(range.upperBound))", show: formatNumber,
               parse: { (plainFloat($0.string) ?? Double.construct(from: $0)).flatMap { $0.isFinite ? $0 : nil } })
    }

    /// A plain-style scalar only: a quoted '5' is a string, as YAML's own resolution says.
    private func number<Number: Comparable>(_ key: String, default fallback: Number, range: ClosedRange<Number>,
                                            kind: String, bounds: String, show: (Number) -> String,
                                            parse: (Node.Scalar) -> Number?) -> Number {
        guard let value = node(key) else { return fallback }
        guard let scalar = value.scalar, scalar.style == .plain, let number = parse(scalar) else {
            diag.error("'\(key)' must be \(kind) (got \(describe(value)))", at: value.mark, source: source)
            return fallback
        }
        guard range.contains(number) else {
            diag.error("'\(key)' must be \(bounds) (got \(show(number)))", at: value.mark, source: source)
            return fallback
        }
        return number
    }

    /// YAML 1.1 booleans spelt as Yams' default resolver accepts them (composing resolves no
    /// tags, so this is where a plain scalar becomes a boolean).
    /// A switch, not a table built at first use: building it (case mapping, hashing) was 2% of
    /// --check-config.
    static func yamlBoolean(_ text: String) -> Bool? {
        switch text {
        case "true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON": return true
        case "false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF": return false
        default: return nil
        }
    }

    /// Accepts YAML 1.1 booleans (true/false, yes/no, on/off; lower, capitalised or upper case).
    func bool(_ key: String, default fallback: Bool) -> Bool {
        guard let value = node(key) else { return fallback }
        guard let scalar = value.scalar, scalar.style == .plain, let flag = Self.yamlBoolean(scalar.string) else {
            diag.error("'\(key)' must be true or false (got \(describe(value)))", at: value.mark, source: source)
            return fallback
        }
        return flag
    }

    /// The elements of a sequence value (nil after reporting when it is not a sequence).
    func sequence(_ key: String, required: Bool) -> [Node]? {
        guard let value = required ? requireNode(key) : node(key) else { return nil }
        guard let sequence = value.sequence else {
            diag.error("'\(key)' must be a list", at: value.mark, source: source)
            return nil
        }
        return Array(sequence)
    }

    private func describe(_ node: Node) -> String {
        if let scalar = node.scalar { return "'\(String(scalar.string.prefix(40)))'" }
        return node.sequence != nil ? "a list" : "a mapping"
    }
}

/// `0|[1-9][0-9]{0,17}`, the way nearly every number in the file is written, read without Yams'
/// YAML 1.1 integer rules (signs, underscores, 0x/0o/0b, sexagesimal, and a leading 0 meaning
/// octal), which are the fallback and read such digits the same way.
private func plainDecimal(_ text: String) -> Int? {
    let bytes = text.utf8
    guard let first = bytes.first, bytes.count <= 18, first != UInt8(ascii: "0") || bytes.count == 1 else { return nil }
    var value = 0
    for byte in bytes {
        guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
        value = value * 10 + Int(byte - UInt8(ascii: "0"))
    }
    return value
}

/// Yams' reading of a YAML 1.1 integer (signs, `_`, 0x/0o/0b, a leading 0 for octal, base 60),
/// except a base-60 value longer than 10 characters: Yams multiplies its parts without an overflow
/// check, so `99999999999:0:0:0:0:0` would trap the process. Such a value is no number here.
func yamlInt(_ scalar: Node.Scalar) -> Int? {
    let text = scalar.string
    if text.utf8.contains(UInt8(ascii: ":")), text.utf8.count(where: { $0 != UInt8(ascii: "_") }) > 10 { return nil }
    return Int.construct(from: scalar)
}

/// `Double(text)` when the text holds only digits, '.', signs and exponent marks: what Yams'
/// `Node.float` answers for such text, without its first-use cost (it strips '_' through
/// NSString, 1.6% of --check-config). Anything else (`1_000.5`, `1:30`, `.inf`) is nil here and
/// goes to Yams.
func plainFloat(_ text: String) -> Double? {
    let plain = text.utf8.allSatisfy { byte in
        (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: ".")
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+") || byte | 0x20 == UInt8(ascii: "e")
    }
    return plain ? Double(text) : nil
}

private func formatNumber(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
}

/// Keys that look like they carry credentials; rejected wherever they appear.
func isSecretKey(_ key: String) -> Bool {
    let lowered = key.lowercased()
    let markers = ["database", "db_url", "dsn", "password", "passwd", "secret", "conninfo", "connection_string",
                   "postgres_url", "pg_url", "api_key", "token"]
    // A misspelt "database_url" is still a secret that must not sit in the file.
    return markers.contains { lowered.contains($0) } || closestKey(to: lowered, in: ["database_url"]) != nil
}

/// A "did you mean" candidate: small edit distance, or one key being a prefix of the other.
func closestKey(to key: String, in candidates: [String]) -> String? {
    let lowered = key.lowercased()
    var best: (key: String, distance: Int)?
    for candidate in candidates {
        let distance = editDistance(lowered, candidate)
        let isPrefix = lowered.count >= 3 && (candidate.hasPrefix(lowered) || lowered.hasPrefix(candidate))
        let threshold = max(1, min(3, candidate.count / 3))
        guard distance <= threshold || isPrefix else { continue }
        let score = isPrefix ? min(distance, threshold) : distance
        if best == nil || score < best!.distance { best = (candidate, score) }
    }
    return best?.key
}

/// Edit distance counting a swap of neighbours as one edit (optimal string alignment), so
/// "wrold" is one step from "world". Keys are short, so O(n*m) is fine.
func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a.unicodeScalars), b = Array(b.unicodeScalars)
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
    for i in 0...a.count { table[i][0] = i }
    for j in 0...b.count { table[0][j] = j }
    for i in 1...a.count {
        for j in 1...b.count {
            let cost = a[i - 1] == b[j - 1] ? 0 : 1
            table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
            if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
            }
        }
    }
    return table[a.count][b.count]
}
