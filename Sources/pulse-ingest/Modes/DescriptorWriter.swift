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
