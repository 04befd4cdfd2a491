import Primitives

/// What a handler answers: a complete response, an open stream, or work to do off the loop.
///
/// The server fills in what HTTP/1.1 needs (`Date`, `Content-Length`, the configured default
/// `Content-Type` when the body is not empty and none is given) and never sends a body on a
/// `HEAD` request or with 1xx, 204 or 304, whatever the body holds. A `HEAD` answer keeps the
/// `Content-Length` the body would have had.
public enum HTTPResponse: Sendable {
    /// A status, headers and a body.
    case complete(HTTPHead, body: [UInt8])

    /// A streamed response (for Server-Sent Events and the like): see
    /// ``stream(status:headers:heartbeat:onOpen:)``.
    case streamed(HTTPHead, HTTPStreamStart)

    /// A response worked out away from the worker's event loop.
    ///
    /// The server runs the work on one of its offload threads
    /// (``HTTPServerConfiguration/offloadThreads``) and sends what it returns; meanwhile the
    /// worker serves its other connections. For requests that take long (a large document's
    /// solve): the hand-off costs two thread wake-ups, more than a short request. Without offload
    /// threads the work runs on the worker at once. What it returns may be a stream; if it is
    /// itself offloaded, its work runs in place.
    case offloaded(@Sendable () -> HTTPResponse)

    public init(status: Int = 200, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self = .complete(HTTPHead(status: status, headers: headers), body: body)
    }

    public init(status: Int, headers: [(name: String, value: String)] = [], body: String) {
        self.init(status: status, headers: headers, body: Array(body.utf8))
    }

    /// The status and headers of a complete or streamed response; nil for offloaded work.
    /// Sets the head's `logNote` of a complete or streamed answer (an offloaded one has no head yet).
    public mutating func setLogNote(_ note: String?) {
        switch self {
        case .complete(var head, let body):
            head.logNote = note
            self = .complete(head, body: body)
        case .streamed(var head, let start):
            head.logNote = note
            self = .streamed(head, start)
        case .offloaded:
            break
        }
    }

    public var head: HTTPHead? {
        switch self {
        case .complete(let head, _), .streamed(let head, _): return head
        case .offloaded: return nil
        }
    }

    /// The body of a complete response; empty for the others.
    public var body: [UInt8] {
        if case .complete(_, let body) = self { return body }
        return []
    }

    /// A streamed response (for Server-Sent Events and the like).
    ///
    /// The server sends the status line and headers at once (chunked transfer encoding on
    /// HTTP/1.1), then calls `onOpen` with the ``HTTPStream`` on the worker thread that owns the
    /// connection. Other code keeps the stream and pushes chunks to it, from any thread, until it
    /// calls ``HTTPStream/finish()`` or the client leaves. The connection is closed when the
    /// stream ends unless `headers` name a `Connection` header themselves.
    ///
    /// - Parameter heartbeat: bytes sent whenever the stream has been quiet for `interval`
    ///   seconds, so that neither the server's idle timeout nor a proxy closes it
    ///   (``HTTPStreamHeartbeat/sseComment(every:)`` for SSE). Keep the interval below the
    ///   server's `timeoutSeconds`.
    ///
    /// A `HEAD` request, or a stream asked for while the server shuts down, gets the headers (or a
    /// 503) without the stream being opened; `onOpen` is not called then.
    public static func stream(
        status: Int = 200,
        headers: [(name: String, value: String)] = [],
        heartbeat: HTTPStreamHeartbeat? = nil,
        onOpen: @escaping @Sendable (HTTPStream) -> Void
    ) -> HTTPResponse {
        .streamed(HTTPHead(status: status, headers: headers), HTTPStreamStart(heartbeat: heartbeat, onOpen: onOpen))
    }

    /// A JSON response (`Content-Type: application/json` unless `contentType` says otherwise).
    public static func json(
        status: Int = 200, _ json: String, contentType: String = "application/json",
        headers: [(name: String, value: String)] = []
    ) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", contentType)] + headers, body: Array(json.utf8))
    }

    /// An RFC 9457 problem (`application/problem+json`) with `type`, `title`, `status` and `detail`.
    public static func problem(
        status: Int, type: String = "about:blank", title: String? = nil, detail: String? = nil,
        headers: [(name: String, value: String)] = []
    ) -> HTTPResponse {
        var json = "{\"type\":" + jsonQuoted(type)
        json += ",\"title\":" + jsonQuoted(title ?? HTTPResponse.reasonPhrase(for: status))
        json += ",\"status\":\(status)"
        if let detail { json += ",\"detail\":" + jsonQuoted(detail) }
        json += "}"
        return .json(status: status, json, contentType: "application/problem+json", headers: headers)
    }

    /// Whether a response with this status may carry a body (not 1xx, 204 or 304).
    public static func statusAllowsBody(_ status: Int) -> Bool {
        !(100...199).contains(status) && status != 204 && status != 304
    }

    /// The standard reason phrase for `status` ("Unprocessable Content" for 422, ...).
    public static func reasonPhrase(for status: Int) -> String {
        switch status {
        case 100: return "Continue"
        case 101: return "Switching Protocols"
        case 200: return "OK"
        case 201: return "Created"
        case 202: return "Accepted"
        case 203: return "Non-Authoritative Information"
        case 204: return "No Content"
        case 205: return "Reset Content"
        case 206: return "Partial Content"
        case 300: return "Multiple Choices"
        case 301: return "Moved Permanently"
        case 302: return "Found"
        case 303: return "See Other"
        case 304: return "Not Modified"
        case 307: return "Temporary Redirect"
        case 308: return "Permanent Redirect"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 402: return "Payment Required"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 406: return "Not Acceptable"
        case 408: return "Request Timeout"
        case 409: return "Conflict"
        case 410: return "Gone"
        case 411: return "Length Required"
        case 412: return "Precondition Failed"
        case 413: return "Content Too Large"
        case 414: return "URI Too Long"
        case 415: return "Unsupported Media Type"
        case 416: return "Range Not Satisfiable"
        case 417: return "Expectation Failed"
        case 421: return "Misdirected Request"
        case 422: return "Unprocessable Content"
        case 425: return "Too Early"
        case 426: return "Upgrade Required"
        case 428: return "Precondition Required"
        case 429: return "Too Many Requests"
        case 431: return "Request Header Fields Too Large"
        case 500: return "Internal Server Error"
        case 501: return "Not Implemented"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        case 505: return "HTTP Version Not Supported"
        default:
            switch status {
            case 100..<200: return "Informational"
            case 200..<300: return "Success"
            case 300..<400: return "Redirection"
            case 400..<500: return "Client Error"
            default: return "Server Error"
            }
        }
    }
}

/// The status and headers of a response, in the order they are sent. Pairs with CR or LF in them
/// are dropped.
public struct HTTPHead: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    /// What the host's access log adds to this request's line (layoutd: the API key's name);
    /// never sent.
    public var logNote: String?

    public init(status: Int, headers: [(name: String, value: String)] = []) {
        self.status = status
        self.headers = headers
    }

    /// The value of the first header called `name` (ASCII case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { asciiCaseInsensitiveEquals($0.name, name) }?.value
    }

    /// Replaces every header called `name` with one `name: value`.
    public mutating func setHeader(_ name: String, _ value: String) {
        headers.removeAll { asciiCaseInsensitiveEquals($0.name, name) }
        headers.append((name, value))
    }
}

/// How a streamed response starts; see ``HTTPResponse/stream(status:headers:heartbeat:onOpen:)``.
public struct HTTPStreamStart: Sendable {
    public var heartbeat: HTTPStreamHeartbeat?
    public var onOpen: @Sendable (HTTPStream) -> Void

    public init(heartbeat: HTTPStreamHeartbeat? = nil, onOpen: @escaping @Sendable (HTTPStream) -> Void) {
        self.heartbeat = heartbeat
        self.onOpen = onOpen
    }
}

/// Bytes written to a quiet stream every `interval` seconds.
public struct HTTPStreamHeartbeat: Sendable {
    public var interval: Double
    public var bytes: [UInt8]

    public init(interval: Double, bytes: [UInt8]) {
        self.interval = interval
        self.bytes = bytes
    }

    /// An SSE comment line (`: ping`), which EventSource clients ignore.
    public static func sseComment(every interval: Double) -> HTTPStreamHeartbeat {
        HTTPStreamHeartbeat(interval: interval, bytes: Array(": ping\n\n".utf8))
    }
}

/// `text` as a JSON string literal, quotes included.
public func jsonQuoted(_ text: String) -> String {
    var out = "\""
    out.reserveCapacity(text.utf8.count + 2)
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        default:
            if scalar.value < 0x20 {
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
    }
    out += "\""
    return out
}
