#if canImport(Glibc)
import Glibc
#endif

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

/// A whole file as bytes (a pipe too); a folder, a failed read or more than `limit` bytes is an
/// error. open/fstat/read rather than FileManager: its set-up was ~0.1 ms of a small document's
/// `--dump-feed`, whose goal is 5 ms from exec to exit.
func readWholeFile(_ path: String, limit: Int = localInputLimit) -> Result<[UInt8], FileReadFailure> {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return .failure(.unreadable) }
    defer { close(descriptor) }
    var info = stat()
    guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) != S_IFDIR else { return .failure(.unreadable) }
    guard Int(info.st_size) <= limit else { return .failure(.tooLarge(limit: limit)) }
    // One byte more than the size, so a file that grew meanwhile is read on rather than cut.
    var bytes = [UInt8](repeating: 0, count: max(Int(info.st_size), 0) + 1)
    var filled = 0
    while true {
        if filled == bytes.count {
            guard filled <= limit else { return .failure(.tooLarge(limit: limit)) }
            bytes += [UInt8](repeating: 0, count: min(max(bytes.count, 1 << 16), limit + 1 - filled))
        }
        let got = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + filled, $0.count - filled) }
        if got < 0 {
            if errno == EINTR { continue }
            return .failure(.unreadable)
        }
        if got == 0 { break }
        filled += got
    }
    guard filled <= limit else { return .failure(.tooLarge(limit: limit)) }
    bytes.removeSubrange(filled...)
    return .success(bytes)
}

/// A message on standard error, written whole and at once (it may be the process's last words).
func writeToStandardError(_ message: String) {
    var message = message
    message.withUTF8 { _ = writeAll(2, UnsafeRawBufferPointer($0)) }
}
