import TextSupport

/// Keeps log lines one event per line and free of spoofable characters (log injection),
/// and bounds their size so one hostile feed cannot flood the journal.
public enum LogSanitizer {
    /// Removes control characters (C0, DEL, C1), bidi overrides/isolates and Unicode line
    /// separators. Newline, carriage return and tab become one space so words do not merge.
    public static func clean(_ text: String) -> String {
        // Fast path: the common message has nothing to strip.
        if !text.unicodeScalars.contains(where: isUnwanted) { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if scalar == "\n" || scalar == "\r" || scalar == "\t" {
                out.append(" ")
            } else if !isUnwanted(scalar) {
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// Truncates to at most `maxBytes` UTF-8 bytes on a character boundary, marking the cut with "…".
    public static func cap(_ text: String, maxBytes: Int) -> String {
        guard text.utf8.count > maxBytes else { return text }
        let marker = "…"
        let budget = max(0, maxBytes - marker.utf8.count)
        var used = 0
        var end = text.startIndex
        for index in text.indices {
            let next = text.index(after: index)
            let size = text.utf8.distance(from: index, to: next)
            if used + size > budget { break }
            used += size
            end = next
        }
        return String(text[..<end]) + marker
    }

    /// Metadata keys become `[A-Za-z0-9_.-]` so `key=value` pairs and JSON keys stay unambiguous.
    public static func cleanKey(_ key: String) -> String {
        var out = ""
        for scalar in key.unicodeScalars.prefix(128) {
            switch scalar {
            case "a"..."z", "A"..."Z", "0"..."9", "_", ".", "-": out.unicodeScalars.append(scalar)
            default: out.append("_")
            }
        }
        return out.isEmpty ? "_" : out
    }

    /// Every hidden character: a log line shows exactly what it holds, on one line.
    static func isUnwanted(_ scalar: Unicode.Scalar) -> Bool { HiddenCharacter.isHidden(scalar) }
}

/// Hides secrets that reach the logger through metadata or connection strings.
public enum LogRedaction {
    public static let placeholder = "<redacted>"

    /// Substrings (lower-cased) that mark a metadata key as sensitive.
    public static let sensitiveKeyFragments = [
        "password", "passwd", "secret", "token", "database_url", "authorization", "api_key", "apikey", "cookie",
    ]

    public static func isSensitive(key: String) -> Bool {
        let lowered = key.lowercased()
        return sensitiveKeyFragments.contains { lowered.contains($0) }
    }

    /// Replaces the user-info of `scheme://user:pass@host` URLs, e.g. a DATABASE_URL quoted in a
    /// libpq error, with "<redacted>".
    public static func scrubURLCredentials(_ text: String) -> String {
        // Unicode scalars, not Characters: a combining mark after "://", "@" or "/" must not hide
        // them (by Character, "/" and a following U+0301 are one Character, not "/").
        // Cheap guard on the bytes: almost no log text contains both markers.
        let bytes = text.utf8
        guard bytes.contains(UInt8(ascii: "@")), bytes.firstRange(of: "://".utf8) != nil else { return text }
        let scalars = Array(text.unicodeScalars)
        guard let first = schemeSeparator(in: scalars, from: 0) else { return text }
        var result = String.UnicodeScalarView()
        var copied = 0
        var next: Int? = first
        while let separator = next {
            let authorityStart = separator + 3
            let authorityEnd = scalars[authorityStart...].firstIndex(where: { "/ ?#".unicodeScalars.contains($0) }) ?? scalars.endIndex
            if let at = scalars[authorityStart..<authorityEnd].lastIndex(of: "@") {
                result.append(contentsOf: scalars[copied..<authorityStart])
                result.append(contentsOf: placeholder.unicodeScalars)
                copied = at
            }
            next = schemeSeparator(in: scalars, from: authorityStart)
        }
        result.append(contentsOf: scalars[copied...])
        return String(result)
    }

    private static func schemeSeparator(in scalars: [Unicode.Scalar], from start: Int) -> Int? {
        var index = start
        while index + 2 < scalars.count {
            if scalars[index] == ":", scalars[index + 1] == "/", scalars[index + 2] == "/" { return index }
            index += 1
        }
        return nil
    }
}
