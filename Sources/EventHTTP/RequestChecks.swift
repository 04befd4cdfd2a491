import Primitives

/// A request libevent read without complaint but that the edge refuses (RFC 9112), with what it
/// gets. Every one of them is answered with `Connection: close`: most are the building blocks of
/// request smuggling (a proxy in front and this server framing the body differently), and after
/// one the bytes that follow on the connection cannot be trusted to start a request.
struct EdgeRejection: Equatable {
    let status: Int
    let type: String
    let detail: String

    /// problem+json like the API's and the transport's own errors, and the connection closed.
    var response: HTTPResponse { response(adding: []) }

    /// `response` with `extra` headers after its own (CORS).
    func response(adding extra: [(name: String, value: String)]) -> HTTPResponse {
        var json = "{\"type\":\"\(type)\",\"title\":\"\(HTTPResponse.reasonPhrase(for: status))\","
        json += "\"status\":\(status),\"detail\":\"\(detail)\",\"errors\":[]}"
        return .json(status: status, json, contentType: "application/problem+json",
                     headers: [("Connection", "close")] + extra)
    }

    static func badRequest(_ detail: String) -> EdgeRejection {
        EdgeRejection(status: 400, type: "/problems/bad-request", detail: detail)
    }
}

/// The checks libevent 2.1 does not make on a request line and headers (docs/robustness.md, "What
/// each bad request gets"). They run once the request is read: libevent 2.1 has no public hook
/// between the headers and the body for a server (`evhttp_set_newreqcb` is 2.2; a header callback
/// can only be set on a request we are handed complete). libevent framed the body by its own reading
/// (the first `Content-Length`, `Transfer-Encoding` only when it is exactly `chunked`); whatever
/// followed is never read as a request, since the connection closes after the answer.
enum RequestChecks {
    /// Every detail is plain ASCII without quotes or backslashes (they go into JSON unescaped).
    static func check(major: Int, minor: Int, headers: [(name: String, value: String)]) -> EdgeRejection? {
        // libevent accepts any `HTTP/<d>.<d>` with a major version up to 1 (HTTP/0.9, HTTP/1.2,
        // HTTP/1.10) and would echo it in the status line.
        guard major == 1, minor == 0 || minor == 1 else {
            return EdgeRejection(status: 505, type: "/problems/http-version-not-supported",
                                 detail: "this server speaks HTTP/1.1 and HTTP/1.0 only")
        }
        var hosts = 0
        var lengths = 0
        var firstLength = ""
        var codings: [Substring] = []
        var sawTransferEncoding = false
        for (name, value) in headers {
            // libevent splits a header line at its first colon and keeps what is before it, spaces
            // included: `Transfer-Encoding : chunked` arrives as a header libevent does not know.
            guard !name.isEmpty, allBytes(of: name, satisfy: isTokenByte) else {
                return .badRequest("a header name is not a token (whitespace before the colon?)")
            }
            // NUL never gets here: libevent's C strings end the value at it (docs/robustness.md).
            guard allBytes(of: value, satisfy: isFieldValueByte) else {
                return .badRequest("a header value holds a control character")
            }
            if asciiCaseInsensitiveEquals(name, "Host") {
                hosts += 1
            } else if asciiCaseInsensitiveEquals(name, "Content-Length") {
                if lengths == 0 { firstLength = value }
                lengths += 1
            } else if asciiCaseInsensitiveEquals(name, "Transfer-Encoding") {
                sawTransferEncoding = true
                codings += value.split(separator: ",").map(trimmingOWS).filter { !$0.isEmpty }
            }
        }
        if hosts > 1 { return .badRequest("more than one Host header") }
        if hosts == 0 && minor == 1 { return .badRequest("an HTTP/1.1 request must have a Host header") }
        if lengths > 1 { return .badRequest("more than one Content-Length header") }
        if lengths == 1, firstLength.isEmpty || !allBytes(of: firstLength, satisfy: { $0 >= 0x30 && $0 <= 0x39 }) {
            return .badRequest("Content-Length is not a plain decimal number")
        }
        if sawTransferEncoding {
            if lengths > 0 { return .badRequest("Transfer-Encoding and Content-Length together") }
            let chunked = codings.filter { asciiCaseInsensitiveEquals(String($0), "chunked") }.count
            // RFC 9112 6.1: chunked not last means the body's length cannot be known: 400 and close.
            guard let last = codings.last, asciiCaseInsensitiveEquals(String(last), "chunked"), chunked == 1 else {
                return .badRequest("Transfer-Encoding must end with chunked, once")
            }
            // A coding before chunked (gzip, chunked): framed right, but not one we can undo.
            if codings.count > 1 {
                return EdgeRejection(status: 501, type: "/problems/not-implemented",
                                     detail: "the only transfer coding this server implements is chunked")
            }
        }
        return nil
    }

    private static func trimmingOWS(_ text: Substring) -> Substring {
        var text = text
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return text
    }

    /// RFC 9110 `tchar`: what a header name may be made of (letters, digits and
    /// ``!#$%&'*+-.^_`|~``, spelled as byte ranges: every header name of every request is read).
    static func isTokenByte(_ c: UInt8) -> Bool {
        switch c {
        case 0x61...0x7A, 0x41...0x5A, 0x30...0x39,    // a-z A-Z 0-9
             0x21, 0x23...0x27, 0x2A, 0x2B, 0x2D, 0x2E,   // ! # $ % & ' * + - .
             0x5E...0x60, 0x7C, 0x7E:                     // ^ _ ` | ~
            return true
        default:
            return false
        }
    }

    /// What a header value may hold: visible ASCII, spaces, tabs and bytes of 0x80 and above.
    static func isFieldValueByte(_ c: UInt8) -> Bool {
        c >= 0x20 && c != 0x7F || c == 0x09
    }

    /// `predicate` of every UTF-8 byte of `text`, read in place (the transport's strings are native).
    private static func allBytes(of text: String, satisfy predicate: (UInt8) -> Bool) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { $0.allSatisfy(predicate) } ?? text.utf8.allSatisfy(predicate)
    }
}
