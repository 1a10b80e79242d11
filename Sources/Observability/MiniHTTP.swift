/// The sliver of HTTP/1.x the metrics endpoint needs: one small GET per connection.
/// Hand-written because SwiftNIO is too heavy to build here and the protocol surface is tiny.
enum MiniHTTP {
    static let maxHeaderBytes = 8 * 1024

    struct RequestHead: Equatable {
        var method: String
        /// The target without its query string.
        var path: String
    }

    struct Response: Equatable {
        var status: Int
        var contentType = "text/plain; charset=utf-8"
        var body: String
        var extraHeaders: [(String, String)] = []

        static func == (lhs: Response, rhs: Response) -> Bool {
            lhs.status == rhs.status && lhs.contentType == rhs.contentType && lhs.body == rhs.body
                && lhs.extraHeaders.map { "\($0.0):\($0.1)" } == rhs.extraHeaders.map { "\($0.0):\($0.1)" }
        }

        func serialized(includeBody: Bool = true) -> [UInt8] {
            let bodyBytes = Array(body.utf8)
            var head = "HTTP/1.1 \(status) \(MiniHTTP.reason(status))\r\n"
            head += "Content-Type: \(contentType)\r\n"
            head += "Content-Length: \(bodyBytes.count)\r\n"
            head += "Cache-Control: no-store\r\n"
            head += "X-Content-Type-Options: nosniff\r\n"
            for (name, value) in extraHeaders { head += "\(name): \(value)\r\n" }
            head += "Connection: close\r\n\r\n"
            return Array(head.utf8) + (includeBody ? bodyBytes : [])
        }
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 400: "Bad Request"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 503: "Service Unavailable"
        default: "Status"
        }
    }

    /// Index just past the blank line ending the head, if the buffer holds one.
    /// Bare-LF heads are accepted too (hand-typed netcat requests).
    static func headEnd(in buffer: [UInt8]) -> Int? {
        var index = 0
        while index + 1 < buffer.count {
            if buffer[index] == 10 && buffer[index + 1] == 10 { return index + 2 }
            if index + 3 < buffer.count, buffer[index] == 13, buffer[index + 1] == 10,
               buffer[index + 2] == 13, buffer[index + 3] == 10 { return index + 4 }
            index += 1
        }
        return nil
    }

    /// Parses `METHOD SP target SP HTTP/1.x` from the first line; nil if it is not that.
    static func parseHead(_ head: ArraySlice<UInt8>) -> RequestHead? {
        let lineEnd = head.firstIndex(of: 10) ?? head.endIndex
        var line = head[head.startIndex..<lineEnd]
        if line.last == 13 { line = line.dropLast() }
        guard let text = String(validating: line, as: UTF8.self) else { return nil }
        let parts = text.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty,
              parts[0].allSatisfy({ $0.isASCII && $0.isUppercase }),
              parts[1].hasPrefix("/"),
              parts[2] == "HTTP/1.1" || parts[2] == "HTTP/1.0" else { return nil }
        let target = parts[1]
        let path = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? target
        return RequestHead(method: String(parts[0]), path: String(path))
    }
}
