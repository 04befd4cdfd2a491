#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A plain pthread mutex, with a condition variable to wait on while holding it.
///
/// The standard library's `Synchronization.Mutex` has no condition variable, and `NSLock` would
/// bring Foundation into EventHTTP; this is the one lock of the project.
public final class PThreadLock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    public init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        // Timed waits measure against the monotonic clock: a wall-clock step must not stretch them.
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
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
    public func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Runs `body` under the lock when it is free now; nil, without waiting, when another thread
    /// holds it.
    @inline(__always)
    public func tryWithLock<T>(_ body: () throws -> T) rethrows -> T? {
        guard pthread_mutex_trylock(mutex) == 0 else { return nil }
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Sleeps until ``signal()`` or ``broadcast()``; only inside ``withLock(_:)``, whose lock is
    /// released meanwhile and held again on return.
    public func wait() { pthread_cond_wait(condition, mutex) }

    /// As ``wait()``, for `seconds` at most (a spurious or timed-out wake-up returns too).
    public func wait(seconds: Double) {
        var deadline = timespec()
        clock_gettime(CLOCK_MONOTONIC, &deadline)
        let whole = max(0, seconds).rounded(.down)
        var nanoseconds = deadline.tv_nsec + Int((max(0, seconds) - whole) * 1e9)
        deadline.tv_sec += Int(whole) + nanoseconds / 1_000_000_000
        nanoseconds %= 1_000_000_000
        deadline.tv_nsec = nanoseconds
        pthread_cond_timedwait(condition, mutex, &deadline)
    }

    public func signal() { pthread_cond_signal(condition) }
    public func broadcast() { pthread_cond_broadcast(condition) }
}

/// A value that only ever changes behind its lock.
public final class Locked<Value>: @unchecked Sendable {
    private let lock = PThreadLock()
    private var value: Value

    public init(_ value: Value) { self.value = value }

    public func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        try lock.withLock { try body(&value) }
    }

    /// `withLock` when the lock is free now; nil, without waiting, when another thread holds it.
    public func tryWithLock<R>(_ body: (inout Value) throws -> R) rethrows -> R? {
        try lock.tryWithLock { try body(&value) }
    }
}
