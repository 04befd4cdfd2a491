#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The `Date` header's value (RFC 9110's IMF-fixdate, `Sun, 06 Nov 1994 08:49:37 GMT`), formatted
/// once per second per worker.
///
/// libevent adds `Date` to every answer that lacks one, and formats it each time through
/// `gmtime_r` and `snprintf`: about 3,400 instructions of the ~40,000 a whole fixed answer costs.
/// Day and month names come from tables, not `strftime`, so the locale cannot change them.
struct HTTPDateCache {
    private var second: time_t = -1
    /// NUL-terminated; 29 characters.
    private var text = [CChar](repeating: 0, count: 32)

    /// Calls `body` with the value for the current second.
    mutating func withCurrent<R>(_ body: (UnsafePointer<CChar>) -> R) -> R {
        let now = time(nil)
        if now != second { format(now) }
        return text.withUnsafeBufferPointer { body($0.baseAddress!) }
    }

    private static let days: [StaticString] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months: [StaticString] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                 "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    private mutating func format(_ now: time_t) {
        var t = now
        var parts = tm()
        guard gmtime_r(&t, &parts) != nil else { return }
        second = now
        var n = 0
        func put(_ s: StaticString) {
            s.withUTF8Buffer { for c in $0 { text[n] = CChar(bitPattern: c); n += 1 } }
        }
        func put(_ v: Int32, digits: Int) {
            var divisor: Int32 = 1
            for _ in 1..<digits { divisor *= 10 }
            while divisor > 0 {
                text[n] = CChar(48 + (v / divisor) % 10)
                n += 1
                divisor /= 10
            }
        }
        put(Self.days[Int(parts.tm_wday) % 7])
        put(", ")
        put(parts.tm_mday, digits: 2)
        put(" ")
        put(Self.months[Int(parts.tm_mon) % 12])
        put(" ")
        put(parts.tm_year + 1900, digits: 4)
        put(" ")
        put(parts.tm_hour, digits: 2)
        put(":")
        put(parts.tm_min, digits: 2)
        put(":")
        put(parts.tm_sec, digits: 2)
        put(" GMT")
        text[n] = 0
    }
}
