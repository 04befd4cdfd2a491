import CProblemReplies
import LayoutAPI

/// CORS on the answers the transport makes without the API: libevent's own errors (a body far over
/// the limit, 413; a method it does not know, 501; a request line or headers it cannot read or
/// that are over `maxHeaderBytes`, 400), answered by CProblemReplies' `evhttp_send_error`. Without
/// `Access-Control-Allow-Origin` on them a page on another origin sees `Failed to fetch`, never the
/// status. (EventHTTP's own edge refusals get the same headers through
/// `HTTPServerConfiguration.transportErrorHeaders`.)
enum TransportErrorHeaders {
    /// Set once before the server starts, read by the workers' C callback (which cannot capture).
    nonisolated(unsafe) private static var cors: CORS?

    static func install(_ cors: CORS) {
        Self.cors = cors
        layoutd_problem_replies_set_headers { origin, add, context in
            guard let add, let cors = TransportErrorHeaders.cors else { return }
            for (name, value) in cors.transportHeaders(origin: origin.map { String(cString: $0) }) {
                name.withCString { n in value.withCString { v in add(context, n, v) } }
            }
        }
    }
}
