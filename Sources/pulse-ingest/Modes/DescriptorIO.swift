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

/// A whole file as bytes (a pipe too), or nil when it cannot be opened or read, or is a folder.
/// open/fstat/read rather than FileManager: its set-up was ~0.1 ms of a small document's
/// `--dump-feed`, whose goal is 5 ms from exec to exit.
func readWholeFile(_ path: String) -> [UInt8]? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var info = stat()
    guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) != S_IFDIR else { return nil }
    // One byte more than the size, so a file that grew meanwhile is read on rather than cut.
    var bytes = [UInt8](repeating: 0, count: max(Int(info.st_size), 0) + 1)
    var filled = 0
    while true {
        if filled == bytes.count { bytes += [UInt8](repeating: 0, count: max(bytes.count, 1 << 16)) }
        let got = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + filled, $0.count - filled) }
        if got < 0 {
            if errno == EINTR { continue }
            return nil
        }
        if got == 0 { break }
        filled += got
    }
    bytes.removeSubrange(filled...)
    return bytes
}
