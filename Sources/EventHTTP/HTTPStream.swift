import Primitives
import CLibevent

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An open streamed response (chunked on HTTP/1.1), for Server-Sent Events and the like.
///
/// A handler returns ``HTTPResponse/stream(status:headers:heartbeat:onOpen:)``; the server sends the
/// headers and gives the stream to `onOpen` on the worker thread that owns the connection. Keep it
/// and push to it: every method here is safe from any thread. Work from other threads is queued to
/// the owning loop (in order, per calling thread); calls made on the owning thread act at once.
///
/// The stream ends exactly once, with a ``CloseReason``: ``finish()``, the client leaving, server
/// shutdown, or a client that does not read (more than `maxStreamBufferBytes` waiting). The
/// ``onClose(_:)`` handler then runs on the owning thread; drop the stream there.
public final class HTTPStream: @unchecked Sendable {
    public enum CloseReason: Sendable, Equatable {
        /// ``HTTPStream/finish()`` was called.
        case finished
        /// The client closed the connection, or it timed out.
        case clientDisconnected
        /// The server is shutting down.
        case serverShutdown
        /// The client stopped reading and too much output piled up.
        case slowConsumer
    }

    /// Unique within the server.
    public let id: UInt64
    /// Weak: an application that keeps streams in a registry reachable from its handler would
    /// otherwise form a cycle stream → worker → handler → registry → stream.
    private weak var worker: Worker?

    // Owning loop thread only.
    private var request: OpaquePointer?
    private var connection: OpaquePointer?
    private var heartbeat: HTTPStreamHeartbeat?
    private var heartbeatEvent: OpaquePointer?
    private var lastWriteAt: Double

    // Any thread, guarded by `lock`.
    private let lock = PThreadLock()
    private var open = true
    private var closeReason: CloseReason?
    private var closeHandler: (@Sendable (CloseReason) -> Void)?
    private var farewell: [UInt8]?

    init(id: UInt64, worker: Worker, request: OpaquePointer, connection: OpaquePointer,
         heartbeat: HTTPStreamHeartbeat?) {
        self.id = id
        self.worker = worker
        self.request = request
        self.connection = connection
        self.heartbeat = heartbeat
        self.lastWriteAt = MonotonicTime.now.seconds
    }

    /// Whether the stream can still take data.
    public var isOpen: Bool { lock.withLock { open } }

    /// Why the stream ended, or nil while it is open.
    public var reasonClosed: CloseReason? { lock.withLock { closeReason } }

    /// Whether the caller is on the loop thread that owns this stream.
    public var isOnOwningThread: Bool { worker?.isCurrentThread ?? false }

    /// Sends `bytes` as one chunk. Ignored once the stream has ended.
    public func send(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        worker?.perform { [self] in write(bytes) }
    }

    public func send(_ text: String) {
        send(Array(text.utf8))
    }

    /// Sends one Server-Sent Event: optional `event:` and `id:` lines, then `data` split into
    /// `data:` lines, then a blank line.
    public func sendEvent(data: String, event: String? = nil, id: String? = nil) {
        send(HTTPStream.formatEvent(data: data, event: event, id: id))
    }

    /// The text of one Server-Sent Event.
    public static func formatEvent(data: String, event: String? = nil, id: String? = nil) -> String {
        var text = ""
        if let event { text += "event: \(singleLine(event))\n" }
        if let id { text += "id: \(singleLine(id))\n" }
        var lines = data.split(separator: "\n", omittingEmptySubsequences: false)
        if lines.isEmpty { lines = [""] }
        for line in lines {
            text += "data: "
            text += line.hasSuffix("\r") ? line.dropLast() : line
            text += "\n"
        }
        return text + "\n"
    }

    private static func singleLine(_ text: String) -> String {
        String(text.map { $0 == "\n" || $0 == "\r" ? " " : $0 })
    }

    /// Sets the bytes sent last when the stream ends because the server shuts down (an SSE
    /// `event: shutdown` with a `retry:` hint), so that a client knows to reconnect elsewhere or
    /// later rather than take the end for an error.
    public func setFarewell(_ bytes: [UInt8]) {
        lock.withLock { farewell = bytes }
    }

    /// Ends the stream cleanly (the last chunk is sent after whatever is queued before it).
    public func finish() {
        worker?.perform { [self] in finishOnLoop(reason: .finished) }
    }

    /// Sets the handler run once when the stream ends, on the owning thread. If the stream has
    /// already ended, it runs at once on the calling thread.
    public func onClose(_ handler: @escaping @Sendable (CloseReason) -> Void) {
        let endedWith = lock.withLock { () -> CloseReason? in
            if let closeReason { return closeReason }
            closeHandler = handler
            return nil
        }
        if let endedWith { handler(endedWith) }
    }

    /// Runs `job` on the loop thread that owns this stream (at once when already there). Returns
    /// false when that loop has ended and the job was dropped.
    @discardableResult
    public func execute(_ job: @escaping @Sendable () -> Void) -> Bool {
        worker?.perform(job) ?? false
    }

    // MARK: owning loop thread

    func startHeartbeat() {
        guard let heartbeat, heartbeat.interval > 0, !heartbeat.bytes.isEmpty, let worker else { return }
        let me = Unmanaged.passUnretained(self).toOpaque()
        guard let event = event_new(worker.base, -1, Int16(EV_PERSIST), streamHeartbeatCallback, me) else {
            worker.report(.warning, "stream \(id): cannot create its heartbeat timer")
            return
        }
        // Tick at half the interval so the stream is never quiet much longer than asked.
        var tick = timevalFrom(seconds: max(0.01, heartbeat.interval / 2))
        event_add(event, &tick)
        heartbeatEvent = event
    }

    fileprivate func heartbeatTick() {
        guard let heartbeat, request != nil else { return }
        if MonotonicTime.now.seconds - lastWriteAt >= heartbeat.interval * 0.95 {
            write(heartbeat.bytes)
        }
    }

    /// Queues `bytes` as one chunk, by reference (the caller's array is shared, not copied: an
    /// SSE event goes to every subscriber as the same bytes). A client whose unsent output would
    /// exceed `maxStreamBufferBytes` is cut off (`.slowConsumer`), so a stream that is never read
    /// holds at most that much; a chunk into an empty buffer always goes, so one event larger
    /// than the limit (the first snapshot of a 20,000-view session) does not end a stream.
    private func write(_ bytes: [UInt8]) {
        guard let request, let connection, let worker else { return }
        if let bufferevent = evhttp_connection_get_bufferevent(connection),
           let pending = bufferevent_get_output(bufferevent) {
            let waiting = evbuffer_get_length(pending)
            if waiting > 0, waiting + bytes.count > worker.configuration.maxStreamBufferBytes {
                worker.report(.warning, "stream \(id): the client is not reading; ending the stream")
                finishOnLoop(reason: .slowConsumer)
                return
            }
        }
        guard let chunk = evbuffer_new() else { return }
        addShared(bytes, to: chunk)
        evhttp_send_reply_chunk(request, chunk)
        evbuffer_free(chunk)
        lastWriteAt = MonotonicTime.now.seconds
    }

    /// Ends the reply (final chunk) and releases the stream.
    func finishOnLoop(reason: CloseReason) {
        let last = lock.withLock { () -> [UInt8]? in
            defer { farewell = nil }
            return farewell
        }
        if reason == .serverShutdown, let bytes = last {
            // May end the stream itself (a client not reading): then nothing is left to do below.
            write(bytes)
        }
        guard let request, let connection else { return }
        stopHeartbeat()
        self.request = nil
        self.connection = nil
        worker?.streamEnded(connection: connection)
        // libevent frees the request once the last chunk is written.
        evhttp_send_reply_end(request)
        markClosed(reason)
    }

    /// The connection is going away (client left, timeout, or the server freeing it).
    func connectionLost(serverShutdown: Bool) {
        guard let request else { return }
        stopHeartbeat()
        self.request = nil
        self.connection = nil
        // When the client left in the middle of the reply, libevent detached the request from the
        // connection and left it to us; otherwise the connection frees it.
        if evhttp_request_get_connection(request) == nil {
            evhttp_request_free(request)
        }
        markClosed(serverShutdown ? .serverShutdown : .clientDisconnected)
    }

    /// Last-resort clean-up while the worker tears down.
    func abandon() {
        stopHeartbeat()
        request = nil
        connection = nil
        markClosed(.serverShutdown)
    }

    private func stopHeartbeat() {
        if let heartbeatEvent { event_free(heartbeatEvent) }
        heartbeatEvent = nil
    }

    private func markClosed(_ reason: CloseReason) {
        let handler = lock.withLock { () -> (@Sendable (CloseReason) -> Void)? in
            guard open else { return nil }
            open = false
            closeReason = reason
            defer { closeHandler = nil }
            return closeHandler
        }
        handler?(reason)
    }
}

private func streamHeartbeatCallback(_ fd: Int32, _ what: Int16, _ arg: UnsafeMutableRawPointer?) {
    guard let arg else { return }
    Unmanaged<HTTPStream>.fromOpaque(arg).takeUnretainedValue().heartbeatTick()
}
