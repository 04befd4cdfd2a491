#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A plain pthread mutex, with a condition variable to wait on while holding it. EventHTTP avoids
/// Foundation; `Synchronization.Mutex` needs macOS 15, which the package does not require.
final class PThreadLock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deinitialize(count: 1)
        condition.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    @inline(__always)
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Sleeps until ``signal()`` or ``broadcast()``; only inside ``withLock(_:)``, whose lock is
    /// released meanwhile and held again on return.
    func wait() { pthread_cond_wait(condition, mutex) }
    func signal() { pthread_cond_signal(condition) }
    func broadcast() { pthread_cond_broadcast(condition) }
}

/// Starts a joinable thread with an 8 MiB stack that runs `entry(context)`.
/// - Throws: `HTTPServerError.libevent` when `pthread_create` fails (the caller still owns
///   whatever `context` holds).
func startThread(_ entry: @escaping @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer?,
                 context: UnsafeMutableRawPointer) throws -> pthread_t {
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    pthread_attr_setstacksize(&attributes, 8 << 20)
    var thread = pthread_t()
    let status = pthread_create(&thread, &attributes, entry, context)
    guard status == 0 else { throw HTTPServerError.libevent("pthread_create failed: \(errnoDescription(status))") }
    return thread
}

/// A monotonic clock reading in seconds.
@inline(__always)
func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

func timevalFrom(seconds: Double) -> timeval {
    let clamped = max(0, seconds)
    let whole = clamped.rounded(.down)
    return timeval(tv_sec: Int(whole), tv_usec: Int((clamped - whole) * 1_000_000))
}

/// `strerror` as a Swift string.
func errnoDescription(_ code: Int32) -> String {
    if let message = strerror(code) { return String(cString: message) }
    return "errno \(code)"
}
