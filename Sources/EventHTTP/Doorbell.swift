import Primitives
import CLibevent

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Wakes an event loop from another thread, without libevent's locks.
///
/// libevent lets other threads call `event_active` or `event_base_loopbreak` on a base only after
/// `evthread_use_pthreads()`, and that puts a mutex around every event operation of every base:
/// about twenty lock/unlock pairs per keep-alive request, on the hot path of a server whose bases
/// are each touched by one thread. A doorbell is a non-blocking pipe instead: its read end
/// is a persistent read event on the loop, ``ring()`` writes a byte from any thread, and the loop
/// runs the action on its own thread. Rings that come before the loop runs wait in the pipe.
final class Doorbell: @unchecked Sendable {
    private let lock = PThreadLock()
    // Guarded by `lock`: -1 once closed, so a late ring never writes into a reused descriptor.
    private var writeEnd: Int32 = -1
    // Loop thread (or before the loop runs) only.
    private var readEnd: Int32 = -1
    private var event: OpaquePointer?
    private let action: () -> Void

    /// Throws ``HTTPServerError/libevent(_:)`` when the pipe or its event cannot be made.
    init(base: OpaquePointer, action: @escaping () -> Void) throws {
        self.action = action
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            throw HTTPServerError.libevent("pipe failed: \(errnoDescription(errno))")
        }
        readEnd = ends[0]
        writeEnd = ends[1]
        for end in ends {
            _ = evutil_make_socket_nonblocking(end)  // fcntl(O_NONBLOCK): any descriptor
            _ = evutil_make_socket_closeonexec(end)
        }
        let me = Unmanaged.passUnretained(self).toOpaque()
        event = event_new(base, readEnd, Int16(EV_READ | EV_PERSIST), doorbellCallback, me)
        guard let event, event_add(event, nil) == 0 else {
            invalidate()  // frees the event too, when it was made
            throw HTTPServerError.libevent("cannot watch a doorbell")
        }
    }

    deinit { invalidate() }

    /// Asks the loop to run the action soon. Any thread; a no-op once closed. When the pipe is
    /// full, earlier rings are still unread, so the loop wakes anyway.
    func ring() {
        lock.withLock {
            guard writeEnd >= 0 else { return }
            var byte: UInt8 = 1
            _ = write(writeEnd, &byte, 1)  // no SIGPIPE: the read end closes only after this end
        }
    }

    /// Frees the event and both ends. On the loop's thread after the loop ended, or before it ran.
    func invalidate() {
        if let event { event_free(event) }
        event = nil
        lock.withLock {
            if writeEnd >= 0 { close(writeEnd) }
            writeEnd = -1
        }
        if readEnd >= 0 { close(readEnd) }
        readEnd = -1
    }

    fileprivate func rang() {
        var buffer = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        while withUnsafeMutableBytes(of: &buffer, { read(readEnd, $0.baseAddress, $0.count) }) > 0 {}
        action()
    }
}

private func doorbellCallback(_ fd: Int32, _ what: Int16, _ arg: UnsafeMutableRawPointer?) {
    guard let arg else { return }
    Unmanaged<Doorbell>.fromOpaque(arg).takeUnretainedValue().rang()
}
