/// Text-format PostgreSQL array literals for parameters (`$1::text[]`). Every element is quoted
/// and escaped, so any string is safe.
public enum PostgresArray {
    public static func text(_ elements: [String?]) -> String {
        "{" + elements.map { element in
            guard let element else { return "NULL" }
            var quoted = "\""
            for character in element.unicodeScalars {
                if character == "\"" || character == "\\" { quoted.unicodeScalars.append("\\") }
                quoted.unicodeScalars.append(character)
            }
            return quoted + "\""
        }.joined(separator: ",") + "}"
    }

    public static func text(_ elements: [String]) -> String { text(elements.map { Optional($0) }) }
}
