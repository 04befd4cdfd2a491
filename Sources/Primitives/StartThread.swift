#if canImport(Glibc)
import Glibc
#endif

/// Starts a joinable POSIX thread running `body`, for the stores' threads of their own (SQLite's
/// syncer and checkpointer, PostgreSQL's listener), which use no Foundation. Nil when the system
/// refuses a thread.
public func startThread(_ body: @escaping @Sendable () -> Void) -> pthread_t? {
    final class Box { let body: @Sendable () -> Void; init(_ b: @escaping @Sendable () -> Void) { body = b } }
    var thread = pthread_t()
    let box = Unmanaged.passRetained(Box(body)).toOpaque()
    let code = pthread_create(&thread, nil, { raw in
        let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
        box.body()
        return nil
    }, box)
    if code != 0 {
        Unmanaged<Box>.fromOpaque(box).release()
        return nil
    }
    return thread
}
