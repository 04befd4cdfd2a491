#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A reading of the monotonic clock in nanoseconds (CLOCK_BOOTTIME on Linux: it keeps counting
/// while the machine sleeps, as `ContinuousClock` does).
///
/// Every request reads the clock several times (expiry, Server-Timing, the access log): an
/// `Instant` difference is a 128-bit `Duration` whose conversion to milliseconds or seconds
/// costs more than the readings. Differences here are plain integers.
public struct MonotonicTime: Sendable, Comparable {
    public let nanoseconds: Int64

    public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

    @inline(__always)
    public static var now: MonotonicTime {
        var ts = timespec()
        #if os(Linux)
        clock_gettime(CLOCK_BOOTTIME, &ts)
        #else
        clock_gettime(CLOCK_MONOTONIC, &ts)
        #endif
        return MonotonicTime(nanoseconds: Int64(ts.tv_sec) &* 1_000_000_000 &+ Int64(ts.tv_nsec))
    }

    /// The reading in seconds.
    public var seconds: Double { Double(nanoseconds) / 1e9 }

    /// Nanoseconds from `earlier` to `later`.
    public static func - (later: MonotonicTime, earlier: MonotonicTime) -> Int64 {
        later.nanoseconds &- earlier.nanoseconds
    }

    public static func < (a: MonotonicTime, b: MonotonicTime) -> Bool { a.nanoseconds < b.nanoseconds }
}
