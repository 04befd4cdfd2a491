#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A plain pthread mutex. EventHTTP avoids Foundation; `Synchronization.Mutex`
/// needs macOS 15, which the package does not require.
final class PThreadLock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
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
