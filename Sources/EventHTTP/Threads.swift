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
