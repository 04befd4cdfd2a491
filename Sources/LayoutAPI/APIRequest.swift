import Primitives

/// One HTTP request as the API sees it: no sockets, plain values.
///
/// The transport (layoutd's EventHTTP glue, or a test) builds it from the wire request.
public struct APIRequest: Sendable {
    /// `GET`, `HEAD`, `POST`, `PUT`, `PATCH`, `DELETE` or `OPTIONS`, as sent (methods are case-sensitive).
    public var method: String
    /// The path as sent, still percent-encoded: routing splits it at its `/`s and then decodes each
    /// segment (`/v1/sessions/a%23b` is the session `a#b`; `a%2Fb` is the id `a/b`, never two
    /// segments). A path without `%` is the same either way.
    public var path: String
    /// The raw query string without the leading `?` (`""` when there is none), still percent-encoded.
    public var query: String
    /// Request headers in the order received; names keep the client's spelling.
    public var headers: [(name: String, value: String)]
    /// The request body (empty when there is none).
    public var body: [UInt8]
    /// False when the caller is an event loop that must not wait for the session store or for a
    /// session another request holds (a write may be waiting for the store under its lock). The
    /// API then answers `APIResponse.mustWait` instead of waiting, and the caller hands the request
    /// to a thread that may (`LayoutAPI.mayWaitOnStore` decides beforehand, this is the backstop).
    public var mayWait = true
    /// Who the request is made by, once access control has checked its key: set by
    /// `isExpensive(resolving:)` (which needs the tenant to find the session) so that the key is
    /// hashed and looked up once per request. Only this module sets it: a transport cannot.
    var principal: Principal?

    public init(method: String, path: String, query: String = "",
                headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }

    /// A request with a UTF-8 text body (tests, tools).
    public init(method: String, path: String, query: String = "",
                headers: [(name: String, value: String)] = [], text: String) {
        self.init(method: method, path: path, query: query, headers: headers, body: Array(text.utf8))
    }

    /// The value of the first header called `name`, compared without regard to ASCII case.
    public func header(_ name: String) -> String? {
        headers.first { asciiCaseInsensitiveEquals($0.name, name) }?.value
    }

    /// Every value of the headers called `name` (case-insensitive), in order.
    public func headers(named name: String) -> [String] {
        headers.filter { asciiCaseInsensitiveEquals($0.name, name) }.map(\.value)
    }
}
