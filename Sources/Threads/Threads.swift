#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Hand-written on pthreads: Foundation's `Thread` and `NSCondition` were the last things the
// service used from swift-corelibs-foundation (the rest is in FoundationEssentials), and linking
// that library at all cost every process start about 1 ms (CoreFoundation's initialiser, its
// relocations and its type registrations: 2.33 against 1.25 ms for an empty static program).
// No package on this machine offers a thread or a condition variable without it.

/// Starts detached OS threads for blocking work that must stay off Swift's cooperative pool.
public enum DetachedThread {
    fileprivate final class Start: Sendable {
        let name: String
        let body: @Sendable () -> Void
        init(name: String, body: @escaping @Sendable () -> Void) { self.name = name; self.body = body }
    }

    /// Runs `body` on a new detached thread named `name` (cut to the 15 bytes Linux keeps), with
    /// `stackSize` bytes of stack, or the system's default when nil. A failure to create the thread
    /// (out of memory, or the process's thread limit) stops the process with the error: every
    /// caller hands it work that nothing else would ever run.
    public static func start(name: String, stackSize: Int? = nil, _ body: @escaping @Sendable () -> Void) {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        if let stackSize { pthread_attr_setstacksize(&attributes, stackSize) }
        let context = Unmanaged.passRetained(Start(name: name, body: body)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(&thread, &attributes, detachedThreadMain, context)
        if status != 0 {
            Unmanaged<Start>.fromOpaque(context).release()
            fatalError("pthread_create for thread '\(name)' failed: \(String(cString: strerror(status)))")
        }
    }

    private typealias SetName = @convention(c) (pthread_t, UnsafePointer<CChar>) -> Int32
    /// glibc's `pthread_setname_np`, which Swift's Glibc module does not declare (it is a GNU extension).
    private static let setName: SetName? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pthread_setname_np")
        .map { unsafeBitCast($0, to: SetName.self) }

    /// Names the calling thread (seen in `top -H`, gdb and core dumps).
    fileprivate static func setCurrentName(_ name: String) {
        guard let setName else { return }
        // Linux keeps 15 bytes and a NUL; a longer name makes the call fail, so cut it.
        var bytes = name.utf8.prefix(15).map { CChar(bitPattern: $0) }
        bytes.append(0)
        _ = setName(pthread_self(), bytes)
    }
}

/// The new thread's entry point: takes the `Start` that `DetachedThread.start` retained for it.
private func detachedThreadMain(_ raw: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    let start = Unmanaged<DetachedThread.Start>.fromOpaque(raw!).takeRetainedValue()
    DetachedThread.setCurrentName(start.name)
    start.body()
    return nil
}

/// A mutex with a condition variable, as `NSCondition` offered: lock, wait, signal, broadcast.
/// Timed waits use the monotonic clock, so a change of the wall clock neither shortens nor
/// stretches them.
public final class Condition: @unchecked Sendable {
    // @unchecked: the pthread objects are used only through their own locking calls.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    public init() {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        #if canImport(Glibc)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        #endif
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    public func lock() { pthread_mutex_lock(mutex) }
    public func unlock() { pthread_mutex_unlock(mutex) }
    /// Waits for a signal; the lock must be held. May wake without one, as any condition can.
    public func wait() { pthread_cond_wait(condition, mutex) }
    public func signal() { pthread_cond_signal(condition) }
    public func broadcast() { pthread_cond_broadcast(condition) }

    /// Waits for a signal until `deadline`; the lock must be held. False when the deadline passed.
    public func wait(until deadline: Deadline) -> Bool {
        var time = deadline.time
        return pthread_cond_timedwait(condition, mutex, &time) == 0
    }

    /// A point on the monotonic clock, as `Condition.wait(until:)` takes it.
    public struct Deadline: Sendable {
        fileprivate let time: timespec

        /// `duration` from now (negative durations count as zero).
        public static func after(_ duration: Duration) -> Deadline {
            var now = timespec()
            #if canImport(Glibc)
            clock_gettime(CLOCK_MONOTONIC, &now)
            #else
            clock_gettime(CLOCK_REALTIME, &now)
            #endif
            let (seconds, attoseconds) = duration.components
            guard seconds >= 0, attoseconds >= 0 else { return Deadline(time: now) }
            var nanoseconds = Int(now.tv_nsec) + Int(attoseconds / 1_000_000_000)
            var wholeSeconds = Int(now.tv_sec) &+ Int(clamping: seconds) &+ nanoseconds / 1_000_000_000
            nanoseconds %= 1_000_000_000
            if wholeSeconds < Int(now.tv_sec) { wholeSeconds = Int.max }  // a huge timeout: wait "forever"
            return Deadline(time: timespec(tv_sec: wholeSeconds, tv_nsec: nanoseconds))
        }
    }
}
