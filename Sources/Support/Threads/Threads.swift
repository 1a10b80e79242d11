import Foundation

/// Starts detached OS threads for blocking work that must stay off Swift's cooperative pool
/// (libpq calls, libcurl's event loop, parses of untrusted bytes).
public enum DetachedThread {
    /// Runs `body` on a new detached thread named `name` (cut to the 15 bytes Linux keeps), with
    /// `stackSize` bytes of stack, or the system's default when nil.
    public static func start(name: String, stackSize: Int? = nil, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread {
            setCurrentName(name)
            body()
        }
        if let stackSize { thread.stackSize = stackSize }
        thread.start()
    }

    private typealias SetName = @convention(c) (pthread_t, UnsafePointer<CChar>) -> Int32
    /// glibc's `pthread_setname_np`, which Swift's Glibc module does not declare (it is a GNU
    /// extension); Foundation's `Thread.name` does not reach the OS on Linux.
    private static let setName: SetName? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pthread_setname_np")
        .map { unsafeBitCast($0, to: SetName.self) }

    /// Names the calling thread (seen in `top -H`, gdb and core dumps).
    private static func setCurrentName(_ name: String) {
        guard let setName else { return }
        // Linux keeps 15 bytes and a NUL; a longer name makes the call fail, so cut it.
        var bytes = name.utf8.prefix(15).map { CChar(bitPattern: $0) }
        bytes.append(0)
        _ = setName(pthread_self(), bytes)
    }
}
