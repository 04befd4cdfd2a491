import Dispatch
import EventHTTP
import Foundation
import Testing
import TestSupport

/// `HTTPResponse.offloaded`: work handed to the offload threads, answered on the worker's loop.
@Suite("Offloaded answers")
struct OffloadTests {
    /// A handler whose `/slow` answer is worked out off the loop and waits for `gate`; everything
    /// else is answered in place. `started` counts the works begun, `ran` those finished.
    static func gatedHandler(_ gate: DispatchSemaphore, started: Shared<Int>? = nil, ran: Shared<Int>? = nil) -> HTTPHandler {
        { request in
            guard request.path == "/slow" else { return .json(#"{"fast":true}"#) }
            return .offloaded {
                started?.set((started?.get() ?? 0) + 1)
                gate.wait()
                ran?.set((ran?.get() ?? 0) + 1)
                return .json(#"{"slow":true}"#)
            }
        }
    }

    @Test("while offloaded work runs, the same worker answers its other connections; then the work's answer arrives")
    func otherConnectionsServed() throws {
        let gate = DispatchSemaphore(value: 0)
        let server = try InProcessServer(threads: 1, configure: { $0.offloadThreads = 1 },
                                         handler: Self.gatedHandler(gate))
        let slow = try RawHTTPConnection(port: server.port)
        try slow.sendRequest("GET", "/slow")
        // One worker: without the offload this would wait for the gate (the read times out).
        let fast = try RawHTTPConnection(port: server.port, timeoutSeconds: 3)
        for _ in 0..<3 {
            let answer = try fast.request("GET", "/fast")
            #expect(answer.status == 200)
            #expect(String(decoding: answer.body, as: UTF8.self) == #"{"fast":true}"#)
        }
        gate.signal()
        let answer = try slow.readResponse()
        #expect(answer.status == 200)
        #expect(String(decoding: answer.body, as: UTF8.self) == #"{"slow":true}"#)
        #expect(answer.header("Content-Length") == "13")
        // The connection is kept alive after it.
        #expect(try slow.request("GET", "/fast").status == 200)
        #expect(server.stop())
    }

    @Test("pipelined requests behind an offloaded one are answered after it, in order")
    func pipelinedOrder() throws {
        let server = try InProcessServer(threads: 1, configure: { $0.offloadThreads = 2 }) { request in
            let delay = request.path == "/slow" ? 0.05 : 0
            let body = #"{"path":"\#(request.path)"}"#
            return .offloaded {
                Thread.sleep(forTimeInterval: delay)  // slow work, answered after the fast ones: what is tested
                return .json(body)
            }
        }
        let connection = try RawHTTPConnection(port: server.port)
        try connection.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\nGET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n")
        let bodies = try (0..<3).map { _ in String(decoding: try connection.readResponse().body, as: UTF8.self) }
        #expect(bodies == [#"{"path":"/slow"}"#, #"{"path":"/a"}"#, #"{"path":"/b"}"#])
        #expect(server.stop())
    }

    @Test("offloaded work that answers with offloaded work, twice over: the inner works run in place and the innermost answer is sent")
    func nestedOffload() throws {
        let server = try InProcessServer(threads: 1, configure: { $0.offloadThreads = 1 }) { _ in
            .offloaded { .offloaded { .offloaded { .json(#"{"inner":true}"#) } } }
        }
        let answer = try RawHTTPConnection(port: server.port).request("GET", "/nested")
        #expect(answer.status == 200)
        #expect(String(decoding: answer.body, as: UTF8.self) == #"{"inner":true}"#)
        #expect(server.stop())
    }

    @Test("without offload threads the work runs on the worker and is answered the same")
    func inPlaceWithoutPool() throws {
        // Opened by a signal, not by an initial value: libdispatch traps when a semaphore is freed
        // below the value it was made with.
        let gate = DispatchSemaphore(value: 0)
        gate.signal()
        let ran = Shared(0)
        let server = try InProcessServer(threads: 1, configure: { $0.offloadThreads = 0 },
                                         handler: Self.gatedHandler(gate, ran: ran))
        let connection = try RawHTTPConnection(port: server.port)
        let answer = try connection.request("GET", "/slow")
        #expect(answer.status == 200)
        #expect(String(decoding: answer.body, as: UTF8.self) == #"{"slow":true}"#)
        #expect(ran.get() == 1)
        #expect(server.stop())
    }

    @Test("a client that leaves before its offloaded answer: the answer is dropped and the server serves on")
    func clientLeaves() throws {
        let gate = DispatchSemaphore(value: 0)
        let started = Shared(0), ran = Shared(0)
        let server = try InProcessServer(threads: 1, configure: { $0.offloadThreads = 1 },
                                         handler: Self.gatedHandler(gate, started: started, ran: ran))
        for round in 1...3 {
            let leaving = try RawHTTPConnection(port: server.port)
            try leaving.sendRequest("GET", "/slow")
            #expect(started.wait { $0 == round } == round)
            let clientPort = try #require(leaving.localPort)
            leaving.close()
            // The client is gone before the answer is ready: the server's side of its connection has
            // the close (it is no longer ESTABLISHED).
            let serverSide = { LoopbackSockets.serverSide(of: server.port).filter { $0.remotePort == clientPort } }
            #expect(eventually { !serverSide().contains { $0.state == .established } }, "\(serverSide())")
            gate.signal()
        }
        #expect(ran.wait { $0 == 3 } == 3)
        // Every answer of a client that left has been dealt with: the server holds none of their connections.
        #expect(eventually { LoopbackSockets.openConnections(port: server.port).isEmpty },
                "\(LoopbackSockets.serverSide(of: server.port))")
        let connection = try RawHTTPConnection(port: server.port)
        #expect(try connection.request("GET", "/fast").status == 200)
        gate.signal()
        #expect(try connection.request("GET", "/slow").status == 200)
        #expect(server.stop())
    }

    @Test("shutdown with offloaded work in flight: the answer goes out with Connection: close and run() returns")
    func shutdownWithWorkInFlight() throws {
        let gate = DispatchSemaphore(value: 0)
        let started = Shared(0)
        let server = try InProcessServer(threads: 1, configure: { $0.offloadThreads = 1; $0.shutdownGraceSeconds = 3 },
                                         handler: Self.gatedHandler(gate, started: started))
        let connection = try RawHTTPConnection(port: server.port)
        try connection.sendRequest("GET", "/slow")
        #expect(started.wait { $0 == 1 } == 1)
        server.server.shutdown()
        // The shutdown is under way (the listening socket is closed) before the work's answer comes.
        #expect(eventually { !LoopbackSockets.isListening(port: server.port) })
        gate.signal()
        let answer = try connection.readResponse()
        #expect(answer.status == 200)
        #expect(answer.header("Connection") == "close")
        #expect(server.stop(timeout: 5))
    }

    @Test("work that is still running when the grace ends: run() returns once it is done, its answer dropped")
    func shutdownAfterGrace() throws {
        let began = Shared(0)
        let server = try InProcessServer(threads: 1, configure: { $0.offloadThreads = 1; $0.shutdownGraceSeconds = 0.2 }) { _ in
            .offloaded {
                began.set(began.get() + 1)
                Thread.sleep(forTimeInterval: 0.8)  // work that outlasts the grace: what is tested
                return .json("{}")
            }
        }
        let connection = try RawHTTPConnection(port: server.port)
        try connection.sendRequest("GET", "/slow")
        #expect(began.wait { $0 == 1 } == 1)
        let started = Date()
        #expect(server.stop(timeout: 5))
        #expect(Date().timeIntervalSince(started) < 3)
        #expect(connection.serverClosed())
    }

    @Test("offload threads: one per worker or per CPU the workers leave, whichever is more; a number given is kept, 0 is none")
    func offloadThreadCount() {
        var configuration = HTTPServerConfiguration()
        configuration.threads = 1
        let cpus = HTTPServerConfiguration.availableCPUs
        #expect(configuration.effectiveOffloadThreads == max(1, cpus - 1))
        configuration.threads = cpus + 3
        #expect(configuration.effectiveOffloadThreads == cpus + 3)
        configuration.offloadThreads = 3
        #expect(configuration.effectiveOffloadThreads == 3)
        configuration.offloadThreads = 0
        #expect(configuration.effectiveOffloadThreads == 0)
    }
}
