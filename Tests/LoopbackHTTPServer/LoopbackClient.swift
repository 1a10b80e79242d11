import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A blocking HTTP/1.1 client for 127.0.0.1 only: the loopback WebSub hub of the tests and the
/// bench calls subscribers' callbacks with it (verification GETs and signed pushes, headers of its
/// choosing), which the fetcher is not for. One request per connection (`Connection: close`).
public enum LoopbackClient {
    public struct Reply: Sendable {
        public var status: Int
        public var body: [UInt8]
        public var text: String { String(decoding: body, as: UTF8.self) }
    }

    public enum ClientError: Error { case connect, send, malformed }

    /// `target` is the path and query (`/websub/a?hub.mode=...`).
    public static func request(port: Int, method: String, target: String, headers: [(String, String)] = [],
                               body: [UInt8] = []) throws -> Reply {
        guard let fd = try? LoopbackSocket.connected(port: port) else { throw ClientError.connect }
        defer { close(fd) }
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(body.count)\r\n\r\n"
        let request = Array(head.utf8) + body
        var offset = 0
        while offset < request.count {
            let sent = request[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            // The server may answer (413) and close before reading a large body: read the answer.
            if sent <= 0 { break }
            offset += sent
        }
        var response: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            response.append(contentsOf: chunk[0..<n])
        }
        guard let end = response.firstRange(of: Array("\r\n\r\n".utf8)) else { throw ClientError.malformed }
        let statusLine = String(decoding: response[..<end.lowerBound], as: UTF8.self).split(separator: "\r\n").first ?? ""
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else { throw ClientError.malformed }
        return Reply(status: status, body: Array(response[end.upperBound...]))
    }

    /// Percent-encodes a query value (RFC 3986 unreserved characters stay).
    public static func escape(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2D, 0x2E, 0x5F, 0x7E: out.unicodeScalars.append(Unicode.Scalar(byte))
            default: out += String(format: "%%%02X", byte)
            }
        }
        return out
    }
}
