import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Waits for `condition`: checks it every `pollEvery` seconds until it holds or `timeout` seconds
/// pass; answers whether it held (checked once more at the deadline).
///
/// The one way tests wait for something another thread or process does (a response, a counter, a
/// log line, a process state): a bare sleep either waits too long on a fast machine or too little
/// on a loaded one, and a failed wait is then reported as whatever the next assertion finds.
public func eventually(timeout: Double = 5, pollEvery: Double = 0.005,
                       _ condition: () throws -> Bool) rethrows -> Bool {
    try eventually(timeout: timeout, pollEvery: pollEvery, condition, satisfies: { $0 })
}

/// Reads `value` every `pollEvery` seconds until `condition` holds for what it read or `timeout`
/// seconds pass; returns the last value read (for the assertion, or its message, to show).
@discardableResult
public func eventually<Value>(timeout: Double = 5, pollEvery: Double = 0.005, _ value: () throws -> Value,
                              satisfies condition: (Value) throws -> Bool) rethrows -> Value {
    let deadline = Date().addingTimeInterval(timeout)
    let pause = useconds_t(max(0, min(pollEvery, 60)) * 1e6)
    while true {
        let current = try value()
        if try condition(current) || Date() >= deadline { return current }
        // A retry back-off inside the polling loop, not a wait for a condition.
        usleep(pause)
    }
}
