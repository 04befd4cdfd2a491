import Foundation
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// When a child started with `Process` has ended, and how, found by `waitpid` as well as by
/// Foundation.
///
/// Foundation on Linux learns of a child's exit from SIGCHLD; a test run that starts many children
/// at once (the storage tests spawn their own with `posix_spawn`) was seen to leave one a zombie
/// that `Process` still called running, and `waitUntilExit()` then waited forever. Asking the
/// kernel directly (`WNOHANG`) never blocks and cannot miss the exit; whichever of the two reaps
/// the child first, the other sees it gone.
final class ChildExit: @unchecked Sendable {
    let process: Process
    private let lock = NSLock()
    /// The raw wait status, once this reaped the child itself.
    private var reaped: Int32?

    init(_ process: Process) { self.process = process }

    /// Whether the child has ended (never blocks).
    var hasExited: Bool {
        lock.lock()
        defer { lock.unlock() }
        if reaped != nil || !process.isRunning { return true }
        var raw: Int32 = 0
        if waitpid(process.processIdentifier, &raw, WNOHANG) == process.processIdentifier {
            reaped = raw
            return true
        }
        return false
    }

    /// Waits up to `timeout` seconds; true when the child has ended.
    func wait(timeout: Double) -> Bool {
        eventually(timeout: timeout) { hasExited }
    }

    /// The exit status as a shell reports it (128 + the signal for a killed child); only after
    /// `hasExited`.
    var shellStatus: Int32 {
        lock.lock()
        defer { lock.unlock() }
        if let raw = reaped {
            return raw & 0x7F == 0 ? (raw >> 8) & 0xFF : 128 + (raw & 0x7F)
        }
        return process.terminationReason == .exit ? process.terminationStatus : 128 + process.terminationStatus
    }

    /// Kills the child with SIGKILL if it still runs, and waits until it is gone.
    func kill() {
        guard !hasExited else { return }
        Glibc.kill(process.processIdentifier, SIGKILL)
        _ = wait(timeout: 30)
    }
}
