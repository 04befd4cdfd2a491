import Primitives

// Helpers of ConnectionGuard.swift: its rate-limited log lines and how its accept-error callback
// finds it.

/// At most one line per interval; the lines skipped meanwhile are counted in the next one.
struct RateLimitedLog {
    let intervalSeconds: Double
    private var last = -Double.infinity
    private var skipped = 0

    init(intervalSeconds: Double) { self.intervalSeconds = intervalSeconds }

    /// nil: skip this line; else log it, with the count of lines skipped before it.
    mutating func take(now: Double) -> Int? {
        guard now - last >= intervalSeconds else {
            skipped += 1
            return nil
        }
        last = now
        defer { skipped = 0 }
        return skipped
    }
}

extension Int {
    /// `" (N more like it not logged)"` after a rate-limited line, or nothing.
    var notLoggedSuffix: String { self > 0 ? " (\(self) more like it not logged)" : "" }
}

/// The listener's error callback is called with evhttp's argument (the `evhttp`), not ours: the
/// guard is found by listener. Touched on accept errors and at start and stop only.
enum GuardRegistry {
    nonisolated(unsafe) private static var guards: [UInt: Unmanaged<ConnectionGuard>] = [:]
    private static let lock = PThreadLock()

    static func register(_ listener: OpaquePointer, _ guarded: ConnectionGuard) {
        lock.withLock { guards[UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(listener)))] = .passUnretained(guarded) }
    }

    static func unregister(_ listener: OpaquePointer) {
        _ = lock.withLock { guards.removeValue(forKey: UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(listener)))) }
    }

    static func find(_ listener: OpaquePointer) -> ConnectionGuard? {
        lock.withLock { guards[UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(listener)))]?.takeUnretainedValue() }
    }
}
