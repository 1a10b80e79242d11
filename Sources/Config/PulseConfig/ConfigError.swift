/// One problem found in a configuration file.
public struct ConfigIssue: Sendable, Equatable, CustomStringConvertible {
    public var file: String
    /// 1-based line, when the problem can be tied to one.
    public var line: Int?
    /// The slug of the source the problem is about (or `#N` when the source has no slug).
    public var source: String?
    public var message: String

    public init(file: String, line: Int?, source: String?, message: String) {
        self.file = file
        self.line = line
        self.source = source
        self.message = message
    }

    /// Compiler-style `file:line: source 'slug': message`, so editors can jump to it.
    public var description: String {
        var text = file
        if let line { text += ":\(line)" }
        text += ": "
        if let source { text += "source '\(source)': " }
        return text + message
    }
}

extension [ConfigIssue] {
    /// In line order (stable, so issues of one line keep the order they were found in).
    public var inLineOrder: [ConfigIssue] {
        enumerated().sorted { ($0.element.line ?? 0, $0.offset) < ($1.element.line ?? 0, $1.offset) }.map(\.element)
    }
}

/// Every problem found while loading a configuration file (all of them, not just the first).
public struct ConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    public var file: String
    public var issues: [ConfigIssue]

    public init(file: String, issues: [ConfigIssue]) {
        self.file = file
        self.issues = issues
    }

    init(file: String, line: Int? = nil, message: String) {
        self.init(file: file, issues: [ConfigIssue(file: file, line: line, source: nil, message: message)])
    }

    public var description: String {
        let count = issues.count
        let header = "\(file): \(count) configuration problem\(count == 1 ? "" : "s")"
        return ([header] + issues.map { "  " + $0.description }).joined(separator: "\n")
    }
}
