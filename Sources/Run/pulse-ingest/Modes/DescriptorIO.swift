import Glibc
import FoundationEssentials
import PulseConfig
import PulseModel

/// write(2) until every byte is out (pipes and files take partial writes; EINTR is retried).
/// Returns errno on failure. Shared by the dump modes' stdout lines and `--out-dir` files.
func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32? {
    guard var next = bytes.baseAddress else { return nil }
    var left = bytes.count
    while left > 0 {
        let written = write(descriptor, next, left)
        if written < 0 {
            if errno == EINTR { continue }
            return errno
        }
        next += written
        left -= written
    }
    return nil
}

/// Why a local input could not be read, said after its path.
enum FileReadFailure: Error, CustomStringConvertible {
    case unreadable
    case tooLarge(limit: Int)

    var description: String {
        switch self {
        case .unreadable: "cannot read the file"
        case .tooLarge(let limit): "larger than \(limit >> 20) MiB, the most a dump mode reads from one input"
        }
    }
}

/// A dump mode's ceiling on one local input: several times what a fetch may bring (16 MiB for a
/// feed, 5 MiB for a page), and a bound on memory when the "file" is a pipe or `/dev/zero`.
let localInputLimit = 128 << 20

/// A whole file as bytes (a pipe too), at most `limit`; see `LocalFile.contents`.
func readWholeFile(_ path: String, limit: Int = localInputLimit) -> Result<[UInt8], FileReadFailure> {
    LocalFile.contents(of: path, limit: limit).mapError { failure in
        switch failure {
        case .unreadable: .unreadable
        case .tooLarge(let limit): .tooLarge(limit: limit)
        }
    }
}

/// One JSON line of a dump mode, without its newline: JSONEncoder with sorted keys and slashes left
/// as they are. The values are strings, integers and booleans, which always encode.
func jsonLine<T: Encodable>(_ value: T) -> String {
    String(decoding: jsonBytes(value), as: UTF8.self)
}

/// `jsonLine`'s bytes, for a writer of bytes: no String made and validated in between (that copy
/// was a tenth of --dump-feed's CPU), nor an Array (`[UInt8](Data)` copied byte by byte).
func jsonBytes<T: Encodable>(_ value: T) -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return (try? encoder.encode(value)) ?? Data()
}

/// A JSON value written as null when absent (JSONEncoder's synthesized encoding leaves a nil out).
struct Nullable<Value: Encodable>: Encodable {
    let value: Value?

    init(_ value: Value?) { self.value = value }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        // Not `encode(value)`: the Optional would be one more generic value for JSONEncoder to wrap.
        if let value { try container.encode(value) } else { try container.encodeNil() }
    }
}

/// A message on standard error, written whole and at once (it may be the process's last words).
func writeToStandardError(_ message: String) {
    var message = message
    message.withUTF8 { _ = writeAll(2, UnsafeRawBufferPointer($0)) }
}
