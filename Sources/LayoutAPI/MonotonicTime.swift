#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A reading of the clock `ContinuousClock` reads (CLOCK_BOOTTIME on Linux: monotonic, and it
/// keeps counting while the machine sleeps), in nanoseconds.
///
/// Every request reads the clock four times (expiry, and Server-Timing's parse and solve): an
/// `Instant` difference is a 128-bit `Duration` whose conversion to milliseconds or seconds
/// cost more than the readings (callgrind: ~1,500 instructions a PATCH). Differences here are
/// plain integers.
struct MonotonicTime: Sendable {
    let nanoseconds: Int64

    static var now: MonotonicTime {
        var ts = timespec()
        #if os(Linux)
        clock_gettime(CLOCK_BOOTTIME, &ts)
        #else
        clock_gettime(CLOCK_MONOTONIC, &ts)
        #endif
        return MonotonicTime(nanoseconds: Int64(ts.tv_sec) &* 1_000_000_000 &+ Int64(ts.tv_nsec))
    }

    /// Nanoseconds from `earlier` to `later`.
    static func - (later: MonotonicTime, earlier: MonotonicTime) -> Int64 {
        later.nanoseconds &- earlier.nanoseconds
    }
}
