import Primitives
import EventHTTP
import LayoutAPI
import Storage

/// The one place where HTTP (EventHTTP's `HTTPRequest`/`HTTPResponse`) meets the application.
///
/// `Serve` builds one `Router` at start-up and calls `respond(to:)` for every request, on the
/// worker thread that owns the connection (wrapped in the access log, see `AccessLog.swift`).
/// Every request, `GET /healthz` included, goes to `LayoutAPI.handle` (docs/http.md): routing,
/// 404/405, `OPTIONS`, CORS, `HEAD` and every problem body are the API's. The router only converts
/// between the two request/response types. EventHTTP drops the body of HEAD, 204 and 304 answers
/// (keeping the `Content-Length` a HEAD's GET would have had).
///
/// `layoutd solve` calls the same `LayoutAPI.handle` (see `Solve.swift`), so the CLI and
/// `POST /v1/solve` cannot disagree.
struct Router: Sendable {
    let api: LayoutAPI
    /// Interval of the heartbeat on streamed answers: below the connection time-out, so that an idle
    /// stream is not closed by the server or by a proxy.
    let streamHeartbeatSeconds: Double
    /// Requests by route and status, latency, bytes (`GET /metrics`; see `HTTPMetrics`).
    let metrics = HTTPMetrics()
    /// Requests by tenant, with access control on (`TenantMetrics`).
    let tenantMetrics = TenantMetrics()

    /// `onStoreEvent`: where the API's reports about its store go (the daemon's log).
    init(configuration: DaemonConfiguration, storage: (any SessionStorage)? = nil, access: AccessPolicy? = nil,
         onStoreEvent: (@Sendable (StoreEvent) -> Void)? = nil, onRefusedOrigin: (@Sendable (String) -> Void)? = nil) {
        var api = configuration.apiConfiguration
        api.onStoreEvent = onStoreEvent
        api.onRefusedOrigin = onRefusedOrigin
        api.access = access
        self.init(api: LayoutAPI(configuration: api, storage: storage),
                  connectionTimeoutSeconds: configuration.timeoutSeconds)
    }

    init(api: LayoutAPI, connectionTimeoutSeconds: Double = 30) {
        self.api = api
        streamHeartbeatSeconds = max(0.5, min(15, connectionTimeoutSeconds / 2))
    }

    /// A request the API calls expensive (`LayoutAPI.isExpensive`: a body of 64 KiB or more, or
    /// the wake of a dormant session whose document is that large) is answered off the worker's
    /// loop (`HTTPResponse.offloaded`), and meanwhile the worker goes on answering its other
    /// connections; any other request is answered in place. Why 64 KiB: such a document takes
    /// 3 ms or more to parse, validate and solve (a 120-view form is 64 KB; the largest the
    /// default body limit admits, 1,900 views, 33-50 ms). Why not lower: on a machine whose CPUs
    /// are all busy (a 2-CPU machine with a local load client), the offload thread's work and its
    /// two wake-ups take CPU from whoever else runs; with 16 KiB (every 50-view form offloaded)
    /// the soak ran at 18.0 K requests/s and a p99 of 4.6-5.5 ms, against 21.5 K and 4.2-4.4 ms.
    ///
    /// With a session store, every request that may wait for it goes off the loop too (see
    /// `isExpensive`), and what stays is asked with `mayWait` false: an answer that would have to
    /// wait after all (another request holds the session) comes back `mustWait`, and the request
    /// is sent off the loop then.
    func respond(to request: HTTPRequest) -> HTTPResponse {
        let started = MonotonicTime.now
        var apiRequest = Router.apiRequest(request)
        if api.isExpensive(resolving: &apiRequest) {
            return .offloaded { [self, apiRequest] in respondInPlace(to: apiRequest, started: started) }
        }
        if api.readsMustNotWait {
            apiRequest.mayWait = false
            let reply = api.handle(apiRequest)
            guard reply.mustWait else { return respond(with: reply, to: apiRequest, started: started) }
            apiRequest.mayWait = true
            return .offloaded { [self, apiRequest] in respondInPlace(to: apiRequest, started: started) }
        }
        return respondInPlace(to: apiRequest, started: started)
    }

    private func respondInPlace(to request: APIRequest, started: MonotonicTime) -> HTTPResponse {
        respond(with: api.handle(request), to: request, started: started)
    }

    private func respond(with reply: APIResponse, to request: APIRequest, started: MonotonicTime) -> HTTPResponse {
        metrics.record(route: reply.route, method: request.method, status: reply.status, bytesIn: request.body.count,
                       bytesOut: request.method == "HEAD" || reply.stream != nil ? 0 : reply.body.count,
                       nanoseconds: MonotonicTime.now - started)
        if let tenant = reply.tenant {
            let limited = reply.status == 429 && reply.text.contains("/problems/rate-limited")
            tenantMetrics.record(tenant: tenant, status: reply.status, rateLimited: limited)
        }
        // SSE seam: streamed answers are converted here, before the plain conversion below.
        var response = reply.stream.map { events in
            sseResponse(reply) { stream in
                if let last = events.shutdown { stream.setFarewell(last.bytes) }
                events.open(StreamSink(stream: stream))
            }
        }
            ?? Router.httpResponse(reply)
        if let keyName = reply.keyName { response.setLogNote(keyName) }
        return response
    }

    /// The wire request as the API sees it (the path and the query as sent, still percent-encoded:
    /// the API decodes each path segment after splitting, see LayoutAPI's `Route`).
    static func apiRequest(_ request: HTTPRequest) -> APIRequest {
        APIRequest(method: request.method, path: request.rawPath, query: request.query,
                   headers: request.headers, body: request.body)
    }

    /// A complete API answer as an HTTP response: same status, headers in order, body.
    static func httpResponse(_ reply: APIResponse) -> HTTPResponse {
        HTTPResponse(status: reply.status, headers: reply.headers, body: reply.body)
    }

    // MARK: streamed answers (seam for GET /v1/sessions/{id}/events)

    /// An HTTP streamed response (chunked, kept open) for a Server-Sent Events answer.
    ///
    /// `respond(to:)` uses it for an API answer with `stream` set (`GET /v1/sessions/{id}/events`):
    /// once the stream is open, the API gets it as an `SSESink` (`StreamSink` below), subscribes it
    /// to the session, and unsubscribes it from its `onClose`.
    ///
    /// What EventHTTP already does: status line and headers go out at once (the API's headers,
    /// `Content-Type: text/event-stream` included, are kept; `Connection: close` is added so the
    /// connection ends with the stream); a `HEAD` gets the headers without the stream being
    /// opened; on shutdown open streams end with `.serverShutdown` (no need to finish them here);
    /// a client that stops reading is cut off (`.slowConsumer`). The access log writes
    /// `<status> (stream)` when the stream starts.
    func sseResponse(_ reply: APIResponse, onOpen: @escaping @Sendable (HTTPStream) -> Void) -> HTTPResponse {
        var headers = reply.headers
        if !headers.contains(where: { asciiCaseInsensitiveEquals($0.name, "Cache-Control") }) {
            headers.append(("Cache-Control", "no-cache"))
        }
        return .stream(status: reply.status, headers: headers,
                       heartbeat: .sseComment(every: streamHeartbeatSeconds), onOpen: onOpen)
    }
}

/// LayoutAPI's `SSESink` on top of an EventHTTP stream (every call is thread-safe there).
private struct StreamSink: SSESink {
    let stream: HTTPStream

    func send(_ event: SSEEvent) { stream.send(event.bytes) }
    func execute(_ job: @escaping @Sendable () -> Void) -> Bool { stream.execute(job) }
    func finish() { stream.finish() }
    func onClose(_ handler: @escaping @Sendable () -> Void) { stream.onClose { _ in handler() } }
}
