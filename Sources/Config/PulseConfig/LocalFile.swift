import Glibc

/// A local file read whole: feeds.yaml, PULSE_CA_FILE, `--import-sources` and the dump modes'
/// inputs. open/fstat/read rather than FileManager or Data(contentsOf:): those take no size limit
/// (a pipe or `/dev/zero` would be read until memory ran out) and do not say the errno that the
/// messages name.
public enum LocalFile {
    public enum Failure: Error, Equatable {
        /// open or read failed with this errno; a folder fails with EISDIR.
        case unreadable(errno: Int32)
        case tooLarge(limit: Int)
    }

    /// The whole file (a pipe too); a folder, a failed read or more than `limit` bytes is a failure.
    public static func contents(of path: String, limit: Int) -> Result<[UInt8], Failure> {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return .failure(.unreadable(errno: errno)) }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return .failure(.unreadable(errno: errno)) }
        guard (info.st_mode & S_IFMT) != S_IFDIR else { return .failure(.unreadable(errno: EISDIR)) }
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
                return .failure(.unreadable(errno: errno))
            }
            if got == 0 { break }
            filled += got
        }
        guard filled <= limit else { return .failure(.tooLarge(limit: limit)) }
        bytes.removeSubrange(filled...)
        return .success(bytes)
    }
}
