/// TSV and CSV split into records of fields, each field with the line it starts on. Blank lines
/// are skipped; a row may stop short of the header (the cells it lacks are empty).
enum DelimitedText {
    struct Field: Equatable {
        var value: String
        var line: Int
    }

    struct Record: Equatable {
        var line: Int
        var fields: [Field]
    }

    struct Problem: Equatable {
        var line: Int
        var message: String
    }

    static let tab = UInt8(ascii: "\t"), comma = UInt8(ascii: ","), quote = UInt8(ascii: "\"")
    static let newline = UInt8(ascii: "\n"), carriageReturn = UInt8(ascii: "\r")

    /// The line of the first byte sequence that is not UTF-8, or nil.
    static func firstLineNotUTF8(_ bytes: ArraySlice<UInt8>) -> Int? {
        var line = 1
        for text in bytes.split(separator: newline, omittingEmptySubsequences: false) {
            if text.contains(where: { $0 >= 0x80 }), String(validating: text, as: UTF8.self) == nil { return line }
            line += 1
        }
        return nil
    }

    /// The line and value of the first C0 control byte other than `allowed`, or nil.
    static func firstControl(in bytes: ArraySlice<UInt8>, allowing allowed: Set<UInt8>) -> (line: Int, byte: UInt8)? {
        guard let index = bytes.firstIndex(where: { $0 < 0x20 && !allowed.contains($0) }) else { return nil }
        return (1 + bytes[..<index].count { $0 == newline }, bytes[index])
    }

    /// TSV as IANA's text/tab-separated-values defines it: one record per line, fields split at
    /// tabs, no quoting (a value cannot hold a tab or a line break). A CR before the LF is dropped.
    static func tsvRecords(_ bytes: ArraySlice<UInt8>) -> [Record] {
        var records: [Record] = []
        var line = 0
        for var text in bytes.split(separator: newline, omittingEmptySubsequences: false) {
            line += 1
            if text.last == carriageReturn { text = text.dropLast() }
            guard !text.isEmpty else { continue }
            let fields = text.split(separator: tab, omittingEmptySubsequences: false)
                .map { Field(value: String(decoding: $0, as: UTF8.self), line: line) }
            records.append(Record(line: line, fields: fields))
        }
        return records
    }

    /// CSV as RFC 4180 defines it: fields split at commas, records at CRLF (or LF alone); a field
    /// that holds a comma, a quote or a line break is quoted, its quotes doubled. A quote inside an
    /// unquoted field and text after a closing quote are errors (the record is skipped, and reading
    /// goes on with the next); a quoted field still open at the end stops the reading.
    static func csvRecords(_ bytes: ArraySlice<UInt8>) -> (records: [Record], problems: [Problem]) {
        var records: [Record] = []
        var problems: [Problem] = []
        var index = bytes.startIndex
        let end = bytes.endIndex
        var line = 1
        /// Past the end of the current record, counting lines (after a problem).
        func skipRecord() {
            var quoted = false
            while index < end {
                let byte = bytes[index]
                index += 1
                if byte == quote { quoted.toggle() }
                if byte == newline {
                    line += 1
                    if !quoted { return }
                }
            }
        }
        records: while index < end {
            let recordLine = line
            var fields: [Field] = []
            var sawQuotes = false
            while true {
                let fieldLine = line
                var value: [UInt8] = []
                if index < end, bytes[index] == quote {
                    sawQuotes = true
                    index += 1
                    while true {
                        guard index < end else {
                            problems.append(Problem(line: fieldLine, message: "a quoted field opened here is never closed"))
                            break records
                        }
                        let byte = bytes[index]
                        index += 1
                        if byte == quote {
                            guard index < end, bytes[index] == quote else { break }
                            index += 1
                        } else if byte == newline {
                            line += 1
                        }
                        value.append(byte)
                    }
                    if index < end, bytes[index] != comma, bytes[index] != newline,
                       !(bytes[index] == carriageReturn && (index + 1 == end || bytes[index + 1] == newline)) {
                        problems.append(Problem(line: line, message: "text after a closing quote (a quote inside a "
                                                + "quoted field is written twice: \"\")"))
                        skipRecord()
                        continue records
                    }
                    if index < end, bytes[index] == carriageReturn { index += 1 }
                } else {
                    let start = index
                    while index < end, bytes[index] != comma, bytes[index] != newline { index += 1 }
                    var stop = index
                    if stop > start, bytes[stop - 1] == carriageReturn, index == end || bytes[index] == newline { stop -= 1 }
                    if bytes[start..<stop].contains(quote) {
                        problems.append(Problem(line: line, message: "a quote inside an unquoted field (quote the "
                                                + "whole field and write the quote twice: \"\")"))
                        skipRecord()
                        continue records
                    }
                    value = Array(bytes[start..<stop])
                }
                fields.append(Field(value: String(decoding: value, as: UTF8.self), line: fieldLine))
                guard index < end, bytes[index] == comma else { break }
                index += 1
            }
            if index < end, bytes[index] == newline {
                index += 1
                line += 1
            }
            if fields.count == 1, fields[0].value.isEmpty, !sawQuotes { continue }  // a blank line
            records.append(Record(line: recordLine, fields: fields))
        }
        return (records, problems)
    }
}
