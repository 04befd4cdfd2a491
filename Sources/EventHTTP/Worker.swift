import Primitives
import CLibevent
import CEventHTTPSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One worker thread's event loop: its own `event_base`, `evhttp` and listener.
///
/// Everything libevent-related is touched on the worker's own thread only: other threads hand it
/// work through ``perform(_:)`` and friends, which ring the worker's ``Doorbell`` (libevent's own
/// cross-thread calls would need its locks on every event operation).
final class Worker: @unchecked Sendable {
    let index: Int
    let configuration: HTTPServerConfiguration
    private let handler: HTTPHandler
    private let offload: OffloadPool?
    private let onExit: @Sendable () -> Void

    let base: OpaquePointer
    private var http: OpaquePointer?
    private var bound: OpaquePointer?
    private var doorbell: Doorbell?
    /// Request deadline, connection cap, accept back-off (ConnectionGuard.swift).
    private var connectionGuard: ConnectionGuard?
    /// evhttp keeps the pointer it is given as the default content type: it must outlive `http`.
    private var defaultContentType: UnsafeMutablePointer<CChar>?
    /// The same, for the replies EventHTTP writes itself (`ReplyHead`).
    private var defaultContentTypeName = "application/json"

    // Shared with other threads, guarded by `mailboxLock`.
    private let mailboxLock = PThreadLock()
    private var mailbox: [@Sendable () -> Void] = []
    private var exited = false
    private var ownerThread: pthread_t?

    // Loop thread only.
    private var draining = false
    private var drainStartedAt = 0.0
    /// Connections that delivered at least one request (our close callback is set on them), with
    /// the peer's address and port (read once per connection, not per request).
    private var connections: [OpaquePointer: (address: String, port: Int)] = [:]
    /// Open streams, by connection.
    private var streams: [OpaquePointer: HTTPStream] = [:]
    private var streamCounter: UInt64 = 0
    private var date = HTTPDateCache()
    /// The head of the reply being sent, its buffer reused.
    private let replyHead = ReplyHead()

    /// How long a draining worker waits before it may stop with no tracked connection left, so
    /// that a connection accepted just before the listener closed can still deliver its request.
    private static let drainSettleSeconds = 0.2

    init(index: Int, configuration: HTTPServerConfiguration, handler: @escaping HTTPHandler,
         offload: OffloadPool? = nil, statistics: HTTPServerStatistics = HTTPServerStatistics(),
         onExit: @escaping @Sendable () -> Void) throws {
        self.index = index
        self.configuration = configuration
        self.handler = handler
        self.offload = offload
        self.onExit = onExit
        guard let base = Self.makeBase() else { throw HTTPServerError.libevent("event_base_new failed") }
        self.base = base
        guard let http = evhttp_new(base) else {
            event_base_free(base)
            throw HTTPServerError.libevent("evhttp_new failed")
        }
        self.http = http

        var timeout = timevalFrom(seconds: configuration.timeoutSeconds)
        evhttp_set_timeout_tv(http, &timeout)
        evhttp_set_max_body_size(http, configuration.maxBodyBytes)
        evhttp_set_max_headers_size(http, configuration.maxHeaderBytes)
        defaultContentTypeName = configuration.defaultContentType
        defaultContentType = strdup(configuration.defaultContentType)
        evhttp_set_default_content_type(http, defaultContentType)
        evhttp_set_allowed_methods(http, Worker.allowedMethods)
        // Read (and drop) an oversized body before answering 413, so the client sees the answer.
        evhttp_set_flags(http, EVHTTP_SERVER_LINGERING_CLOSE)

        let me = Unmanaged.passUnretained(self).toOpaque()
        evhttp_set_gencb(http, workerRequestCallback, me)
        do {
            doorbell = try Doorbell(base: base) { [unowned self] in runMailbox() }
            connectionGuard = try ConnectionGuard(base: base, configuration: configuration, statistics: statistics,
                                                  closeCallback: workerConnectionClosedCallback, closeArgument: me)
            evhttp_set_bevcb(http, workerBuffereventCallback, me)
        } catch {
            destroyUnstarted()
            throw error
        }
    }

    static let allowedMethods: UInt16 = {
        let methods = [EVHTTP_REQ_GET, EVHTTP_REQ_POST, EVHTTP_REQ_PUT, EVHTTP_REQ_PATCH,
                       EVHTTP_REQ_DELETE, EVHTTP_REQ_OPTIONS, EVHTTP_REQ_HEAD]
        return UInt16(methods.reduce(0) { $0 | $1.rawValue })
    }()

    // MARK: set-up (on the thread calling HTTPServer.start, before the loop runs)

    /// Binds a listener (SO_REUSEPORT) and attaches it to this worker's evhttp. Returns its port.
    func listen(on address: SocketAddress, backlog: Int, host: String) throws -> Int {
        guard let http else { throw HTTPServerError.libevent("worker already freed") }
        let flags = UInt32(LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC | LEV_OPT_REUSEABLE | LEV_OPT_REUSEABLE_PORT)
        let listener = address.withSockaddr { sa, length in
            evconnlistener_new_bind(base, nil, nil, flags, Int32(clamping: backlog), sa, length)
        }
        guard let listener else {
            let code = errno
            if code == EADDRINUSE {
                throw HTTPServerError.portInUse(
                    host: host, port: address.port,
                    detail: "cannot listen on \(host):\(address.port): the address is already in use by another program")
            }
            throw HTTPServerError.cannotListen(host: host, port: address.port, detail: errnoDescription(code))
        }
        guard let bound = evhttp_bind_listener(http, listener) else {
            evconnlistener_free(listener)
            throw HTTPServerError.libevent("evhttp_bind_listener failed")
        }
        self.bound = bound
        connectionGuard?.attach(listener: listener)
        guard let port = SocketAddress.localPort(of: evconnlistener_get_fd(listener)) else {
            throw HTTPServerError.cannotListen(host: host, port: address.port, detail: "getsockname failed")
        }
        return port
    }

    func stopListening() {
        connectionGuard?.detachListener()
        if let http, let bound {
            evhttp_del_accept_socket(http, bound)  // frees the listener, closes its socket
        }
        bound = nil
    }

    /// Frees everything of a worker whose loop never ran.
    func destroyUnstarted() {
        mailboxLock.withLock { exited = true }
        freeHTTP()
        freeBase()
    }

    /// Frees the evhttp: its listeners and every connection (our close callback runs for each
    /// connection still open).
    private func freeHTTP() {
        connectionGuard?.detachListener()
        if let http { evhttp_free(http) }
        http = nil
        bound = nil
    }

    /// Frees the doorbell, the event base and what evhttp kept a pointer to: last.
    private func freeBase() {
        doorbell?.invalidate()
        doorbell = nil
        connectionGuard?.free()
        connectionGuard = nil
        event_base_free(base)
        free(defaultContentType)
        defaultContentType = nil
    }

    // MARK: the loop thread

    func runLoop() {
        mailboxLock.withLock { ownerThread = pthread_self() }
        event_base_loop(base, EVLOOP_NO_EXIT_ON_EMPTY)
        teardown()
        onExit()
    }

    private func teardown() {
        mailboxLock.withLock {
            exited = true
            mailbox.removeAll()
        }
        draining = true
        // Our close callback releases each open connection's stream.
        freeHTTP()
        for stream in streams.values { stream.abandon() }
        streams.removeAll()
        connections.removeAll()
        freeBase()
    }

    /// An event base whose epoll backend batches its interest changes (`EPOLL_USE_CHANGELIST`):
    /// a keep-alive request turns reading and writing on and off four times, and without the
    /// change list each turn is an `epoll_ctl` system call; with it, changes that cancel out within
    /// one loop iteration make none. (Safe here: no descriptor is `dup`ed.) Falls back to the
    /// default base when the configuration is refused.
    static func makeBase() -> OpaquePointer? {
        if let config = event_config_new() {
            defer { event_config_free(config) }
            _ = event_config_set_flag(config, Int32(EVENT_BASE_FLAG_EPOLL_USE_CHANGELIST.rawValue))
            if let base = event_base_new_with_config(config) { return base }
        }
        return event_base_new()
    }

    /// Whether the caller runs on this worker's loop thread.
    var isCurrentThread: Bool {
        let owner = mailboxLock.withLock { ownerThread }
        guard let owner else { return false }
        return pthread_equal(owner, pthread_self()) != 0
    }

    /// Runs `job` on the loop thread: at once when already there, else queued. Returns false when
    /// the loop has ended (the job is dropped).
    @discardableResult
    func perform(_ job: @escaping @Sendable () -> Void) -> Bool {
        if isCurrentThread {
            job()
            return true
        }
        return enqueue(job)
    }

    @discardableResult
    func enqueue(_ job: @escaping @Sendable () -> Void) -> Bool {
        mailboxLock.withLock {
            guard !exited, let doorbell else { return false }
            mailbox.append(job)
            doorbell.ring()
            return true
        }
    }

    private func runMailbox() {
        let jobs = mailboxLock.withLock { () -> [@Sendable () -> Void] in
            let jobs = mailbox
            mailbox.removeAll(keepingCapacity: true)
            return jobs
        }
        for job in jobs { job() }
    }

    func requestDrain() {
        enqueue { [self] in beginDrain() }
    }

    func requestImmediateStop() {
        enqueue { [self] in event_base_loopbreak(base) }
    }

    private func beginDrain() {
        guard !draining else { return }
        draining = true
        drainStartedAt = MonotonicTime.now.seconds
        stopListening()
        for stream in Array(streams.values) { stream.finishOnLoop(reason: .serverShutdown) }
        var grace = timevalFrom(seconds: configuration.shutdownGraceSeconds)
        event_base_loopexit(base, &grace)
        var settle = timevalFrom(seconds: min(Worker.drainSettleSeconds, configuration.shutdownGraceSeconds))
        event_base_once(base, -1, Int16(EV_TIMEOUT), workerDrainCheckCallback,
                        Unmanaged.passUnretained(self).toOpaque(), &settle)
    }

    fileprivate func checkDrained() {
        guard draining, connections.isEmpty,
              MonotonicTime.now.seconds - drainStartedAt >= Worker.drainSettleSeconds - 0.001 else { return }
        event_base_loopexit(base, nil)
    }

    fileprivate func connectionClosed(_ connection: OpaquePointer) {
        connectionGuard?.closed(connection)
        connections.removeValue(forKey: connection)
        if let stream = streams.removeValue(forKey: connection) {
            stream.connectionLost(serverShutdown: draining)
        }
        if draining { checkDrained() }
    }

    fileprivate func makeConnectionBufferevent() -> OpaquePointer? {
        connectionGuard?.makeBufferevent() ?? bufferevent_socket_new(base, -1, 0)
    }

    func streamEnded(connection: OpaquePointer) {
        streams.removeValue(forKey: connection)
    }

    /// The configuration's `transportErrorHeaders` for `origin` (CORS on the server's own answers).
    private func transportErrorHeaders(_ origin: String?) -> [(name: String, value: String)] {
        configuration.transportErrorHeaders?(origin) ?? []
    }

    func report(_ level: HTTPServerLogLevel, _ message: String) {
        configuration.log?(level, message)
    }

    // MARK: requests

    fileprivate func handle(_ req: OpaquePointer) {
        let connection = evhttp_request_get_connection(req)
        var peer = (address: "", port: 0)
        if let connection {
            connectionGuard?.requestRead(connection)
            if let known = connections[connection] {
                peer = known
            } else {
                peer = Worker.peer(of: connection)
                connections[connection] = peer
                evhttp_connection_set_closecb(connection, workerConnectionClosedCallback,
                                              Unmanaged.passUnretained(self).toOpaque())
            }
        }
        guard let method = Worker.methodName(evhttp_request_get_command(req)) else {
            let origin = evhttp_find_header(evhttp_request_get_input_headers(req), "Origin").map { String(cString: $0) }
            send(.problem(status: 501, detail: "method not supported", headers: transportErrorHeaders(origin)),
                 to: req, isHead: false)
            return
        }
        let request = makeRequest(req, method: method, peer: peer)
        let version = LibeventInternals.requestVersion(req)
        if let rejection = RequestChecks.check(major: version.major, minor: version.minor, headers: request.headers) {
            LibeventInternals.answerAsHTTP11(req)
            let origin = request.headers.first { asciiCaseInsensitiveEquals($0.name, "Origin") }?.value
            send(rejection.response(adding: transportErrorHeaders(origin)), to: req, isHead: method == "HEAD")
            return
        }
        let response = handler(request)
        let isHead = method == "HEAD"
        if case .offloaded(let work) = response {
            answerLater(work, to: req, connection: connection, isHead: isHead)
            return
        }
        answer(response, to: req, connection: connection, isHead: isHead)
    }

    /// Runs `work` on the offload pool and answers `req` with its result back on this loop.
    ///
    /// Why `req` and `connection` are still there when the answer comes: evhttp stops reading a
    /// connection while its request waits for an answer (so no close or time-out is noticed and
    /// nothing is freed), and only `evhttp_free` at teardown frees it; by then `exited` is set
    /// and the mailbox refuses the answer (or drops it unrun), so a freed request is never
    /// touched.
    private func answerLater(_ work: @escaping @Sendable () -> HTTPResponse, to req: OpaquePointer,
                             connection: OpaquePointer?, isHead: Bool) {
        let pending = PendingRequest(req: req, connection: connection)
        let queued = offload?.submit { [self] in
            let response = work()
            enqueue { [self] in answer(response, to: pending.req, connection: pending.connection, isHead: isHead) }
        } ?? false
        if !queued { answer(work(), to: req, connection: connection, isHead: isHead) }
    }

    /// Sends `response` (opening its stream, if it is one); an offloaded response's work runs here.
    private func answer(_ response: HTTPResponse, to req: OpaquePointer, connection: OpaquePointer?, isHead: Bool) {
        switch response {
        case .offloaded(let work):
            answer(work(), to: req, connection: connection, isHead: isHead)
        case .complete(let head, let body):
            send(head, body: body, to: req, isHead: isHead)
        case .streamed(let head, _) where isHead || !HTTPResponse.statusAllowsBody(head.status):
            // Only the head: no stream for HEAD, 1xx, 204 or 304.
            send(head, body: [], to: req, isHead: isHead)
        case .streamed(let head, let start):
            if draining {
                send(.problem(status: 503, detail: "the server is shutting down"), to: req, isHead: false)
            } else if let connection {
                openStream(req, connection: connection, head: head, start: start)
            } else {
                send(.problem(status: 500, detail: "no connection for the stream"), to: req, isHead: false)
            }
        }
    }

    static func methodName(_ command: evhttp_cmd_type) -> String? {
        switch command {
        case EVHTTP_REQ_GET: return "GET"
        case EVHTTP_REQ_POST: return "POST"
        case EVHTTP_REQ_HEAD: return "HEAD"
        case EVHTTP_REQ_PUT: return "PUT"
        case EVHTTP_REQ_DELETE: return "DELETE"
        case EVHTTP_REQ_OPTIONS: return "OPTIONS"
        case EVHTTP_REQ_PATCH: return "PATCH"
        case EVHTTP_REQ_TRACE: return "TRACE"
        case EVHTTP_REQ_CONNECT: return "CONNECT"
        default: return nil
        }
    }

    private static func peer(of connection: OpaquePointer) -> (address: String, port: Int) {
        var address: UnsafeMutablePointer<CChar>?
        var port: UInt16 = 0
        evhttp_connection_get_peer(connection, &address, &port)
        return (address.map { String(cString: $0) } ?? "", Int(port))
    }

    private func makeRequest(_ req: OpaquePointer, method: String, peer: (address: String, port: Int)) -> HTTPRequest {
        var rawPath = ""
        var query = ""
        // The target as sent when it is a path (origin form): libevent's URI parser would read
        // `//healthz` as an authority `healthz` with an empty path, i.e. `/`.
        if let uri = evhttp_request_get_uri(req), uri.pointee == UInt8(ascii: "/") {
            // Split where the C string lies: the path ends at the first `?` or `#`, the query at
            // `#`. A fragment is not sent by conforming clients; dropped as libevent's parser did.
            let pathLength = strcspn(uri, "?#")
            rawPath = String(decoding: UnsafeRawBufferPointer(start: uri, count: pathLength), as: UTF8.self)
            if uri[pathLength] == CChar(UInt8(ascii: "?")) {
                let rest = uri + pathLength + 1
                query = String(decoding: UnsafeRawBufferPointer(start: rest, count: strcspn(rest, "#")), as: UTF8.self)
            }
        } else if let uri = evhttp_request_get_evhttp_uri(req) {
            if let path = evhttp_uri_get_path(uri) { rawPath = String(cString: path) }
            if let q = evhttp_uri_get_query(uri) { query = String(cString: q) }
        } else if let uri = evhttp_request_get_uri(req) {
            let text = String(cString: uri)
            if let mark = text.firstIndex(of: "?") {
                rawPath = String(text[..<mark])
                query = String(text[text.index(after: mark)...])
            } else {
                rawPath = text
            }
        }
        if rawPath.isEmpty { rawPath = "/" }

        var headers: [(name: String, value: String)] = []
        headers.reserveCapacity(8)
        if let list = evhttp_request_get_input_headers(req) {
            var entry = list.pointee.tqh_first
            while let header = entry {
                if let key = header.pointee.key, let value = header.pointee.value {
                    headers.append((knownHeaderName(key) ?? String(cString: key), String(cString: value)))
                }
                entry = header.pointee.next.tqe_next
            }
        }

        var body: [UInt8] = []
        if let input = evhttp_request_get_input_buffer(req) {
            let length = evbuffer_get_length(input)
            // Copied once. Not `Array(unsafeUninitializedCapacity:)`: it looks up the array's
            // metadata at run time on every call.
            if length > 0 {
                if evbuffer_get_contiguous_space(input) >= length, let bytes = evbuffer_pullup(input, length) {
                    // Read in one piece (the usual small body): read where it lies.
                    body = Array(UnsafeBufferPointer(start: bytes, count: length))
                } else {
                    // In pieces: made contiguous, pullup would copy it once more.
                    body = [UInt8](repeating: 0, count: length)
                    let copied = body.withUnsafeMutableBytes { evbuffer_copyout(input, $0.baseAddress, length) }
                    if copied < length { body.removeLast(length - max(0, copied)) }
                }
            }
        }

        return HTTPRequest(method: method, path: percentDecode(rawPath), query: query, headers: headers,
                           body: body, rawPath: rawPath, remoteAddress: peer.address, remotePort: peer.port)
    }

    private func send(_ response: HTTPResponse, to req: OpaquePointer, isHead: Bool) {
        answer(response, to: req, connection: nil, isHead: isHead)
    }

    /// Writes a complete response: its head by `ReplyHead` (never evhttp's `evhttp_send_error`,
    /// which would replace our headers with HTML and close the connection, nor its header list),
    /// then its body by reference, into the connection's output; `LibeventInternals.finishReply`
    /// sends them and lets evhttp finish the request (LibeventInternals.c).
    private func send(_ head: HTTPHead, body: [UInt8], to req: OpaquePointer, isHead: Bool) {
        // Looked up first: `req` (and, when it closes, the connection) may be freed by the send.
        let connection = evhttp_request_get_connection(req)
        defer { if let connection { connectionGuard?.answered(connection) } }
        guard (100...599).contains(head.status) else {
            report(.error, "handler answered status \(head.status); sending 500")
            send(.problem(status: 500, detail: "invalid response status"), to: req, isHead: isHead)
            return
        }
        guard let output = LibeventInternals.replyOutput(req) else {
            LibeventInternals.finishReply(req, closeAfter: false)
            return
        }
        let minor = LibeventInternals.requestVersion(req).minor
        let asked = evhttp_find_header(evhttp_request_get_input_headers(req), "Connection")
        let request = ReplyHead.Request(minorVersion: minor,
                                        asksClose: asked.map { evutil_ascii_strcasecmp($0, "close") == 0 } ?? false,
                                        asksKeepAlive: asked.map { evutil_ascii_strcasecmp($0, "keep-alive") == 0 } ?? false,
                                        isHead: isHead)
        date.withCurrent { date in
            replyHead.write(status: head.status, headers: head.headers, bodyLength: body.count, request: request,
                            date: date, draining: draining, defaultContentType: defaultContentTypeName)
        }
        for name in replyHead.dropped {
            report(.warning, "dropped response header '\(name)': CR or LF in it")
        }
        _ = evbuffer_add(output, replyHead.storage, replyHead.count)
        // No body on HEAD (it would break keep-alive framing), nor on 1xx, 204 and 304.
        if !isHead, HTTPResponse.statusAllowsBody(head.status), !body.isEmpty {
            addShared(body, to: output)
        }
        LibeventInternals.finishReply(req, closeAfter: replyHead.closes)
    }

    private func addHeaders(_ headers: [(name: String, value: String)], to output: UnsafeMutablePointer<evkeyvalq>?) {
        for (name, value) in headers {
            // Explicit withCString: passing a String as a `const char *` argument copies a small
            // string (under 16 bytes: "ETag", "\"2\"") into a new array, an allocation each.
            let failed = name.withCString { n in value.withCString { v in evhttp_add_header(output, n, v) } }
            if failed != 0 {
                report(.warning, "dropped response header '\(name)': CR or LF in it")
            }
        }
    }

    /// `X-Content-Type-Options: nosniff` on every answer: a browser must take each body as its
    /// `Content-Type` says (a JSON error echoing input is never run as a script or page).
    private func addNoSniff(to output: UnsafeMutablePointer<evkeyvalq>?) {
        if evhttp_find_header(output, "X-Content-Type-Options") == nil {
            evhttp_add_header(output, "X-Content-Type-Options", "nosniff")
        }
    }

    private func openStream(_ req: OpaquePointer, connection: OpaquePointer, head: HTTPHead, start: HTTPStreamStart) {
        let output = evhttp_request_get_output_headers(req)
        addHeaders(head.headers, to: output)
        addNoSniff(to: output)
        if head.header("Connection") == nil {
            evhttp_add_header(output, "Connection", "close")
        }
        HTTPResponse.reasonPhrase(for: head.status).withCString { reason in
            evhttp_send_reply_start(req, Int32(head.status), reason)
        }
        streamCounter += 1
        let stream = HTTPStream(id: UInt64(index) << 48 | streamCounter, worker: self, request: req,
                                connection: connection, heartbeat: start.heartbeat)
        streams[connection] = stream
        stream.startHeartbeat()
        start.onOpen(stream)
    }
}

/// A request waiting for its offloaded answer (see `Worker.answerLater`). The pointers are only
/// used on the loop thread that owns them; the box only carries them through the pool.
private struct PendingRequest: @unchecked Sendable {
    let req: OpaquePointer
    let connection: OpaquePointer?
}

/// Adds `bytes` to `buffer` by reference, without copying them: the array's storage stays alive
/// in a `ResponseBody` until libevent has sent or dropped it and calls `releaseResponseBody`.
/// Response bodies and stream chunks (one SSE event's bytes shared by every subscriber) go
/// this way.
func addShared(_ bytes: [UInt8], to buffer: OpaquePointer) {
    let owner = ResponseBody(bytes)
    let retained = Unmanaged.passRetained(owner).toOpaque()
    // The array is never mutated while `owner` lives, so its storage does not move.
    let added = owner.bytes.withUnsafeBytes { raw in
        evbuffer_add_reference(buffer, raw.baseAddress, raw.count, releaseResponseBody, retained)
    }
    if added != 0 {
        // Not added (out of memory): libevent did not take the reference.
        Unmanaged<ResponseBody>.fromOpaque(retained).release()
    }
}

/// Bytes lent to libevent (see `addShared`).
private final class ResponseBody {
    let bytes: [UInt8]
    init(_ bytes: [UInt8]) { self.bytes = bytes }
}

// C callbacks: free functions in a non-main file, so that they are not main-actor isolated.

/// libevent is done with bytes added by reference: drop the reference `addShared` kept.
private func releaseResponseBody(_ data: UnsafeRawPointer?, _ length: Int, _ arg: UnsafeMutableRawPointer?) {
    guard let arg else { return }
    Unmanaged<ResponseBody>.fromOpaque(arg).release()
}

private func workerRequestCallback(_ req: OpaquePointer?, _ arg: UnsafeMutableRawPointer?) {
    guard let req, let arg else { return }
    Unmanaged<Worker>.fromOpaque(arg).takeUnretainedValue().handle(req)
}

private func workerBuffereventCallback(_ base: OpaquePointer?, _ arg: UnsafeMutableRawPointer?) -> OpaquePointer? {
    guard let arg else { return nil }
    return Unmanaged<Worker>.fromOpaque(arg).takeUnretainedValue().makeConnectionBufferevent()
}

private func workerDrainCheckCallback(_ fd: Int32, _ what: Int16, _ arg: UnsafeMutableRawPointer?) {
    guard let arg else { return }
    Unmanaged<Worker>.fromOpaque(arg).takeUnretainedValue().checkDrained()
}

private func workerConnectionClosedCallback(_ connection: OpaquePointer?, _ arg: UnsafeMutableRawPointer?) {
    guard let connection, let arg else { return }
    Unmanaged<Worker>.fromOpaque(arg).takeUnretainedValue().connectionClosed(connection)
}

/// The usual request header names, as written by clients (curl, browsers, load tools), as
/// string literals (immortal: no allocation): a name that is exactly one of them costs a byte
/// comparison instead of a `String(cString:)` (its length, UTF-8 validation, a string made) on
/// every request.
private let knownHeaderNames: [String] = [
    "Host", "Content-Type", "Content-Length", "Accept", "User-Agent", "Connection", "If-Match",
    "If-None-Match", "Origin", "Accept-Encoding", "Transfer-Encoding",
]

/// `key` as one of `knownHeaderNames` (spelled exactly so), or nil.
private func knownHeaderName(_ key: UnsafePointer<CChar>) -> String? {
    // By length first: most names are told apart without reading their bytes.
    let length = strlen(key)
    for name in knownHeaderNames where name.utf8.count == length {
        if name.utf8.withContiguousStorageIfAvailable({ memcmp($0.baseAddress!, key, length) == 0 }) == true {
            return name
        }
    }
    return nil
}
