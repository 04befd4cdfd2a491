#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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

/// `seconds` as a `timeval`, for any `Double`: negative and NaN give 0, and anything past
/// `maxTimevalSeconds` (infinity included) gives that, where `Int(1e300)` trapped (issue 27). The
/// daemon's settings are range-checked before they get here; this is the second line.
func timevalFrom(seconds: Double) -> timeval {
    let clamped = seconds.isNaN ? 0 : min(max(0, seconds), maxTimevalSeconds)
    let whole = clamped.rounded(.down)
    return timeval(tv_sec: Int(whole), tv_usec: min(999_999, Int((clamped - whole) * 1_000_000)))
}

/// About 68 years: far past any time-out, and within a 32-bit `time_t` and libevent's
/// arithmetic on `tv_sec` (it adds the time of day, which must not overflow).
let maxTimevalSeconds = Double(Int32.max)

/// `strerror` as a Swift string.
func errnoDescription(_ code: Int32) -> String {
    if let message = strerror(code) { return String(cString: message) }
    return "errno \(code)"
}
