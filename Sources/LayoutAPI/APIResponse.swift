import Primitives

/// What the API answers: a status, headers in order, and a body.
///
/// `Content-Length`, `Date` and the like are the transport's business. A `HEAD` answer carries
/// the body the `GET` would have had, so that the transport can send its `Content-Length`; the
/// transport must not send the body itself (EventHTTP drops it, as it does for 204 and 304).
public struct APIResponse: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    /// Set on `GET /v1/sessions/{id}/events`: send the status and headers, then keep the connection
    /// open as a Server-Sent Events stream and hand it to `stream.open` (see `APIEventStream`).
    public var stream: APIEventStream?
    /// The route that answered, for metrics (set by `LayoutAPI.handle`; `unknown` for a 404 path).
    public internal(set) var route: RouteName = .unknown
    /// The request was made with `mayWait` false and answering it needs a wait (the session store,
    /// or a session another request holds): nothing was done; send it again from a thread that may
    /// wait. Never sent to a client.
    public internal(set) var mustWait = false
    /// With access control: the name of the key the request was made with (for the access log;
    /// never the key) and its tenant (for metrics); nil for an open route or a refused request.
    public internal(set) var keyName: String?
    public internal(set) var tenant: String?

    /// The answer to a request that may not wait but must (see `mustWait`).
    static var waitNeeded: APIResponse {
        var r = APIResponse(status: 503)
        r.mustWait = true
        return r
    }

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
        self.stream = nil
    }

    /// The value of the first header called `name` (ASCII case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { asciiCaseInsensitiveEquals($0.name, name) }?.value
    }

    /// The body decoded as UTF-8 (tests, logs).
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// A JSON response (`Content-Type: application/json`).
    static func json(_ status: Int, _ body: [UInt8], headers: [(name: String, value: String)] = []) -> APIResponse {
        // One array of the final size (a literal plus `+` would allocate two).
        var all: [(name: String, value: String)] = []
        all.reserveCapacity(1 + headers.count)
        all.append(("Content-Type", MediaType.json))
        all.append(contentsOf: headers)
        return APIResponse(status: status, headers: all, body: body)
    }

    /// A JSON answer with an `ETag` and a `Server-Timing` (every PATCH and session answer): its
    /// headers in one array literal, one allocation.
    static func json(_ status: Int, _ body: [UInt8], etag: String, timing: ServerTiming) -> APIResponse {
        APIResponse(status: status, headers: [("Content-Type", MediaType.json), ("ETag", etag), timing.header],
                    body: body)
    }

    mutating func addHeader(_ name: String, _ value: String) {
        headers.append((name, value))
    }
}
