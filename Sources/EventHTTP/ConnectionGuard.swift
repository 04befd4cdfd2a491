import Primitives
import CLibevent
import CEventHTTPSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A worker's defences at the connection level, which evhttp 2.1 does not have:
///
/// - **a deadline for each request's headers and body** (``HTTPServerConfiguration/requestDeadlineSeconds``):
///   libevent's time-out is an idle time-out, reset by every byte, so one byte every few seconds
///   holds a connection for ever (slowloris). The clock starts at the first byte of a request and
///   stops when the request is read; a request still incomplete at the deadline has its connection
///   closed, without an answer.
/// - **a connection cap** (``HTTPServerConfiguration/effectiveMaxConnectionsPerWorker``): at the cap the
///   listener is paused (new connections wait in the kernel's backlog) until one closes.
/// - **a back-off when `accept` fails** (`EMFILE` at the descriptor limit): without an error
///   callback libevent logs the failure and retries at once, for ever, at 100% of a core; here the
///   listener pauses for ``acceptBackoffSeconds`` and one line is logged per second at most.
///
/// How it sees connections: evhttp asks us for each new connection's bufferevent
/// (`evhttp_set_bevcb`), which we create as evhttp would. Once evhttp has set its callbacks on it
/// (later in the same turn of the loop, see `adopt`), the bufferevent's callback argument is the
/// `evhttp_connection`, an evhttp internal (`LibeventInternals.httpConnection(of:)`, probed at
/// start-up): we set its close callback and watch its input buffer (`evbuffer_add_cb`) for the
/// first byte of each request. EdgeHardeningTests and FaultTests pin this down (the cap's count
/// comes back as connections close; slow requests are cut).
/// Everything runs on the worker's loop thread.
final class ConnectionGuard {
    fileprivate final class Tracked {
        let bev: OpaquePointer
        var inputWatch: OpaquePointer?
        /// When the first byte of the request being read arrived; nil between requests.
        var requestStartedAt: Double?
        /// Read and not yet answered (or a stream): the deadline does not apply.
        var inFlight = false
        let maxHeaderBytes: Int
        let maxBodyBytes: Int
        init(bev: OpaquePointer, maxHeaderBytes: Int, maxBodyBytes: Int) {
            self.bev = bev
            self.maxHeaderBytes = maxHeaderBytes
            self.maxBodyBytes = maxBodyBytes
        }

        /// The request at the start of the input buffer, not yet read by libevent (Prescan.c).
        func prescan(_ input: OpaquePointer) {
            _ = layoutd_prescan_request(input, maxHeaderBytes, UInt64(maxBodyBytes))
        }
    }

    static let acceptBackoffSeconds = 0.1

    private let base: OpaquePointer
    private let deadline: Double
    private let maxHeaderBytes: Int
    private let maxBodyBytes: Int
    private let cap: Int
    private let log: (HTTPServerLogLevel, String) -> Void
    private var listener: OpaquePointer?
    private var listenerEnabled = true
    private var backingOff = false
    /// Accepted and not yet closed (adopted or about to be).
    private var live = 0 {
        // The server-wide count (`HTTPServerStatistics`) follows this worker's.
        didSet { if live > oldValue { statistics.connectionOpened() } else if live < oldValue { statistics.connectionClosed() } }
    }
    private let statistics: HTTPServerStatistics
    private var pending: [OpaquePointer] = []
    private var tracked: [OpaquePointer: Tracked] = [:]
    private var adoptEvent: OpaquePointer?
    private var sweepEvent: OpaquePointer?
    private var resumeEvent: OpaquePointer?
    private var capLog = RateLimitedLog(intervalSeconds: 10)
    private var acceptLog = RateLimitedLog(intervalSeconds: 1)
    private var deadlineLog = RateLimitedLog(intervalSeconds: 1)

    private let closeCallback: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Void
    private let closeArgument: UnsafeMutableRawPointer

    /// `closeCallback(connection, closeArgument)` is set on every connection; it must call ``closed(_:)``.
    init(base: OpaquePointer, configuration: HTTPServerConfiguration, statistics: HTTPServerStatistics = HTTPServerStatistics(),
         closeCallback: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Void, closeArgument: UnsafeMutableRawPointer) throws {
        self.base = base
        self.statistics = statistics
        self.closeCallback = closeCallback
        self.closeArgument = closeArgument
        deadline = configuration.requestDeadlineSeconds
        maxHeaderBytes = configuration.maxHeaderBytes
        maxBodyBytes = configuration.maxBodyBytes
        cap = configuration.effectiveMaxConnectionsPerWorker
        let sink = configuration.log
        log = { level, message in sink?(level, message) }
        let me = Unmanaged.passUnretained(self).toOpaque()
        adoptEvent = event_new(base, -1, 0, guardAdoptCallback, me)
        sweepEvent = event_new(base, -1, Int16(EV_PERSIST), guardSweepCallback, me)
        resumeEvent = event_new(base, -1, 0, guardResumeCallback, me)
        var every = timevalFrom(seconds: min(1, max(0.05, deadline / 4)))
        guard adoptEvent != nil, resumeEvent != nil, let sweepEvent, event_add(sweepEvent, &every) == 0 else {
            free()
            throw HTTPServerError.libevent("cannot create the connection guard's events")
        }
    }

    /// Frees the events; before the base is freed.
    func free() {
        for event in [adoptEvent, sweepEvent, resumeEvent] { if let event { event_free(event) } }
        adoptEvent = nil
        sweepEvent = nil
        resumeEvent = nil
        detachListener()
    }

    // MARK: the listener

    func attach(listener: OpaquePointer) {
        self.listener = listener
        listenerEnabled = true
        evconnlistener_set_error_cb(listener, guardAcceptErrorCallback)
        GuardRegistry.register(listener, self)
    }

    /// Before the listener is freed (drain, teardown).
    func detachListener() {
        if let listener { GuardRegistry.unregister(listener) }
        listener = nil
    }

    private func updateListener() {
        guard let listener else { return }
        let run = !backingOff && live < cap
        guard run != listenerEnabled else { return }
        listenerEnabled = run
        _ = run ? evconnlistener_enable(listener) : evconnlistener_disable(listener)
        if !run && !backingOff, let skipped = capLog.take(now: MonotonicTime.now.seconds) {
            log(.warning, "connection limit reached: \(live) connections open on this worker (its share of "
                + "maxConnections); new connections wait in the backlog until one closes\(skipped.notLoggedSuffix)")
        }
    }

    fileprivate func acceptFailed(code: Int32) {
        backingOff = true
        updateListener()
        var pause = timevalFrom(seconds: Self.acceptBackoffSeconds)
        if let resumeEvent { event_add(resumeEvent, &pause) }
        if let skipped = acceptLog.take(now: MonotonicTime.now.seconds) {
            log(.error, "accept failed: \(errnoDescription(code)) (\(live) connections open on this worker); "
                + "not accepting for \(Int(Self.acceptBackoffSeconds * 1000)) ms\(skipped.notLoggedSuffix)")
        }
    }

    fileprivate func resume() {
        backingOff = false
        updateListener()
    }

    // MARK: connections

    /// evhttp's `bevcb`: the bufferevent of a connection just accepted, as evhttp makes it itself.
    func makeBufferevent() -> OpaquePointer? {
        guard let bev = bufferevent_socket_new(base, -1, 0) else { return nil }
        live += 1
        // Kept alive until `adopt` looks at it, even if evhttp frees the connection before.
        bufferevent_incref(bev)
        pending.append(bev)
        if let adoptEvent { event_active(adoptEvent, Int32(EV_TIMEOUT), 0) }
        if live >= cap { updateListener() }
        return bev
    }

    /// Runs after the accept callback, in the same turn of the loop, before anything was read.
    fileprivate func adoptPending() {
        let bevs = pending
        pending.removeAll(keepingCapacity: true)
        for bev in bevs {
            // nil: evhttp gave up on it (`bufferevent_free` cleared its callbacks).
            if let connection = LibeventInternals.httpConnection(of: bev) {
                let entry = Tracked(bev: bev, maxHeaderBytes: maxHeaderBytes, maxBodyBytes: maxBodyBytes)
                tracked[connection] = entry
                evhttp_connection_set_closecb(connection, closeCallback, closeArgument)
                entry.inputWatch = evbuffer_add_cb(bufferevent_get_input(bev), guardInputCallback,
                                                   Unmanaged.passUnretained(entry).toOpaque())
            } else {
                live -= 1
            }
            bufferevent_decref(bev)
        }
        updateListener()
    }

    /// From the connection's close callback.
    func closed(_ connection: OpaquePointer) {
        guard let entry = tracked.removeValue(forKey: connection) else { return }
        // Before evhttp drains the buffer (`evhttp_connection_reset_`), which would call us back.
        if let watch = entry.inputWatch { evbuffer_remove_cb_entry(bufferevent_get_input(entry.bev), watch) }
        live -= 1
        updateListener()
    }

    /// The connection's request was read completely: it is the handler's now.
    func requestRead(_ connection: OpaquePointer) {
        guard let entry = tracked[connection] else { return }
        entry.inFlight = true
        entry.requestStartedAt = nil
    }

    /// The request was answered: a pipelined request already waiting starts its clock now (libevent
    /// reads it on a later turn of the loop, so it is still whole at the start of the buffer).
    func answered(_ connection: OpaquePointer) {
        guard let entry = tracked[connection] else { return }
        entry.inFlight = false
        let input = bufferevent_get_input(entry.bev)!
        if evbuffer_get_length(input) > 0 {
            entry.requestStartedAt = MonotonicTime.now.seconds
            entry.prescan(input)
        } else {
            entry.requestStartedAt = nil
        }
    }

    /// Bytes were added to the connection's input buffer; libevent reads them right after.
    fileprivate static func bytesArrived(_ entry: Tracked, input: OpaquePointer, added: Int) {
        guard entry.requestStartedAt == nil && !entry.inFlight else { return }
        entry.requestStartedAt = MonotonicTime.now.seconds
        // The first bytes of a request: everything in the buffer is this request's.
        if evbuffer_get_length(input) == added { entry.prescan(input) }
    }

    fileprivate func sweep() {
        let now = MonotonicTime.now.seconds
        var cut = 0
        for entry in tracked.values {
            guard !entry.inFlight, let started = entry.requestStartedAt, now - started > deadline else { continue }
            // Through evhttp's own time-out path (it closes the connection without an answer, as
            // for an idle time-out): a read time-out of a microsecond, armed at once while reading.
            var now = timeval(tv_sec: 0, tv_usec: 1)
            bufferevent_set_timeouts(entry.bev, &now, &now)
            entry.requestStartedAt = nil
            cut += 1
        }
        if cut > 0, let skipped = deadlineLog.take(now: now) {
            log(.info, "closed \(cut) connection(s) whose request was not read within \(deadline) s\(skipped.notLoggedSuffix)")
        }
    }
}

// C callbacks: free functions in a non-main file, so that they are not main-actor isolated.

private func guardAcceptErrorCallback(_ listener: OpaquePointer?, _ arg: UnsafeMutableRawPointer?) {
    let code = errno
    guard let listener, let found = GuardRegistry.find(listener) else { return }
    found.acceptFailed(code: code)
}

private func guardResumeCallback(_ fd: Int32, _ what: Int16, _ arg: UnsafeMutableRawPointer?) {
    guard let arg else { return }
    Unmanaged<ConnectionGuard>.fromOpaque(arg).takeUnretainedValue().resume()
}

private func guardSweepCallback(_ fd: Int32, _ what: Int16, _ arg: UnsafeMutableRawPointer?) {
    guard let arg else { return }
    Unmanaged<ConnectionGuard>.fromOpaque(arg).takeUnretainedValue().sweep()
}

private func guardAdoptCallback(_ fd: Int32, _ what: Int16, _ arg: UnsafeMutableRawPointer?) {
    guard let arg else { return }
    Unmanaged<ConnectionGuard>.fromOpaque(arg).takeUnretainedValue().adoptPending()
}

private func guardInputCallback(_ buffer: OpaquePointer?, _ info: UnsafePointer<evbuffer_cb_info>?,
                                _ arg: UnsafeMutableRawPointer?) {
    guard let arg, let buffer, let info, info.pointee.n_added > 0 else { return }
    ConnectionGuard.bytesArrived(Unmanaged<ConnectionGuard.Tracked>.fromOpaque(arg).takeUnretainedValue(),
                                 input: buffer, added: info.pointee.n_added)
}
