import Foundation
import Testing

/// The errors libevent answers before a request reaches the API (CProblemReplies/ProblemReplies.c): problem+json
/// like every other error, with libevent's status, and the connection closed.
@Suite("layoutd daemon: the transport's own errors")
struct TransportErrorTests {
    private struct Case {
        let name: String
        let bytes: [UInt8]
        let status: Int
        let type: String
        let detail: String
    }

    private static let cases: [Case] = [
        Case(name: "unparsable request line", bytes: Array("GARBAGE\r\n\r\n".utf8), status: 400,
             type: "/problems/bad-request", detail: "not valid HTTP/1.x"),
        Case(name: "header line without a colon", bytes: Array("GET /healthz HTTP/1.1\r\nno colon here\r\n\r\n".utf8),
             status: 400, type: "/problems/bad-request", detail: "not valid HTTP/1.x"),
        Case(name: "Content-Length that is not a number",
             bytes: Array("POST /v1/solve HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n".utf8), status: 400,
             type: "/problems/bad-request", detail: "not valid HTTP/1.x"),
        Case(name: "headers over maxHeaderBytes",
             bytes: Array("GET /healthz HTTP/1.1\r\nX-Big: \(String(repeating: "a", count: 20_000))\r\n\r\n".utf8),
             status: 400, type: "/problems/bad-request", detail: "maxHeaderBytes"),
        Case(name: "a method outside the implemented set", bytes: Array("TRACE / HTTP/1.1\r\nHost: x\r\n\r\n".utf8),
             status: 501, type: "/problems/method-not-implemented", detail: "GET, HEAD, POST"),
        Case(name: "a body far over the limit",
             bytes: Array("POST /v1/solve HTTP/1.1\r\nHost: x\r\nContent-Length: 300000\r\n\r\n".utf8)
                 + [UInt8](repeating: 0x20, count: 300_000),
             status: 413, type: "/problems/body-too-large", detail: "the body has 300000 bytes"),
    ]

    @Test("HEAD gets the transport's error without a body")
    func headWithoutBody() throws {
        let daemon = try Daemon()
        let connection = try daemon.connect()
        try connection.send("HEAD /healthz HTTP/1.1\r\nno colon here\r\n\r\n")
        let response = try connection.readResponse(forMethod: "HEAD")
        #expect(response.status == 400)
        #expect(response.header("Content-Type") == "application/problem+json")
        // Nothing follows the head: the next thing on the connection is its end.
        #expect(connection.serverClosed())
    }

    @Test("malformed requests, oversized headers and bodies, unknown methods: problem+json, then close",
          arguments: cases.indices)
    func problemJSON(index: Int) throws {
        let c = Self.cases[index]
        let daemon = try Daemon(["--max-body-bytes", "1024"])
        let connection = try daemon.connect()
        try connection.send(c.bytes)
        let response = try connection.readResponse()
        #expect(response.status == c.status, "\(c.name)")
        #expect(response.header("Content-Type") == "application/problem+json", "\(c.name)")
        #expect(response.header("Connection") == "close", "\(c.name)")
        let problem = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        #expect(problem?["type"] as? String == c.type, "\(c.name)")
        #expect(problem?["status"] as? Int == c.status, "\(c.name)")
        #expect((problem?["detail"] as? String)?.contains(c.detail) == true, "\(c.name): \(response.text)")
        #expect((problem?["errors"] as? [Any])?.isEmpty == true, "\(c.name)")
        #expect(connection.serverClosed(), "\(c.name)")
        // Nothing else changed: the daemon still answers.
        #expect(try daemon.connect().request("GET", "/healthz").status == 200)
    }
}
