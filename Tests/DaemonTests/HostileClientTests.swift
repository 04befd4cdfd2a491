import Foundation
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Clients that try to stop the service, each on the real daemon (the cases come from the attacks
/// of ../shared/notes/attacks.md): a deep parent chain does not kill it, a dormant session's wake
/// does not block its worker, event streams cost the worker once per revision, a subscriber that
/// never reads is dropped, and every answer forbids content sniffing.
@Suite("layoutd daemon: hostile clients (deep trees, large wakes, silent and many subscribers) leave the service up", .serialized)
struct HostileClientTests {
    /// The daemon's resident memory (VmRSS), in KiB.
    static func residentKiB(_ daemon: Daemon) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(daemon.process.processIdentifier)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
    }

    /// The status `request` answered and the seconds it took.
    static func timed(_ request: () throws -> RawHTTPResponse) rethrows -> (status: Int, seconds: Double) {
        let start = Date()
        let status = try request().status
        return (status, Date().timeIntervalSince(start))
    }

    /// `count` views under the root, each as wide as the root less one point: resizing the root
    /// changes every frame (each event carries all of them, about 60 bytes a view).
    static func form(_ count: Int, width: Int = 400) -> String {
        var views = [#""root":{"frame":{"width":\#(width),"height":\#(count * 10)}}"#]
        var constraints: [String] = []
        for i in 0..<count {
            views.append(#""v\#(i)":{"parent":"root","frame":{"x":0,"y":\#(i * 10),"height":10}}"#)
            constraints.append(#""c\#(i)":{"first":"v\#(i).width","second":"root.width","constant":-1}"#)
        }
        return #"{"views":{\#(views.joined(separator: ","))},"constraints":{\#(constraints.joined(separator: ","))}}"#
    }

    static func resize(_ width: Int) -> String { #"{"views":{"root":{"frame":{"width":\#(width)}}}}"# }

    @Test("a 20,000-deep parent chain: solve, session, GET absolute, render.svg (both) answer 200; the daemon lives",
          .timeLimit(.minutes(10)))
    func deepChain() throws {
        let daemon = try Daemon(["--max-body-bytes", String(DeepChain.bodyLimit(20_000))])
        let document = DeepChain.document(20_000)
        let c = try daemon.connect(timeoutSeconds: 300)
        #expect(try c.post("/v1/solve", document).status == 200)
        #expect(try c.put("/v1/sessions/deep", document).status == 201)
        #expect(try c.get("/v1/sessions/deep?coordinates=absolute").status == 200)
        let svg = try c.get("/v1/sessions/deep/render.svg")
        #expect(svg.status == 200 && svg.text.hasSuffix("</svg>\n"))
        #expect(try c.post("/v1/render.svg", document).status == 200)
        #expect(try daemon.connect().get("/healthz").status == 200)
        #expect(daemon.process.isRunning)
    }

    @Test("waking a large dormant session runs off the worker: /healthz on the same worker answers in < 100 ms",
          .timeLimit(.minutes(5)))
    func dormantWake() throws {
        let daemon = try Daemon(["--threads", "1", "--max-resident-sessions", "1"])
        let setup = try daemon.connect(timeoutSeconds: 120)
        let big = Self.form(2_000)
        #expect(big.utf8.count > 64 << 10)
        #expect(try setup.put("/v1/sessions/big", big).status == 201)
        // A second session pushes the first out of the resident budget of one.
        #expect(try setup.put("/v1/sessions/small", Self.form(2)).status == 201)
        let patcher = try daemon.connect(timeoutSeconds: 120)
        var healthz: Double = -1, patch: Double = -1
        let started = Date()
        try patcher.sendRequest("PATCH", "/v1/sessions/big", headers: [("Content-Type", "application/merge-patch+json")],
                                body: Array(Self.resize(420).utf8))
        // The daemon has read the PATCH: it is on the worker (or the offload thread) now.
        #expect(eventually { LoopbackSockets.allRead(port: daemon.port) })
        let probe = try daemon.connect(timeoutSeconds: 10)
        let probed = try Self.timed { try probe.get("/healthz") }
        #expect(probed.status == 200)
        healthz = probed.seconds
        #expect(try patcher.readResponse().status == 200)
        patch = Date().timeIntervalSince(started)
        print("dormant wake: PATCH \(patch * 1000) ms, /healthz meanwhile \(healthz * 1000) ms")
        #expect(healthz < 0.1, "GET /healthz took \(healthz) s while the wake (\(patch) s) ran")
        #expect(patch > healthz)
    }

    @Test("a subscriber that never reads while its session is edited: dropped, memory bounded, others served",
          .timeLimit(.minutes(5)))
    func slowSubscriber() throws {
        let daemon = try Daemon(["--threads", "1"])
        let c = try daemon.connect(timeoutSeconds: 60)
        #expect(try c.put("/v1/sessions/s", Self.form(300)).status == 201)
        let silent = try daemon.connect(timeoutSeconds: 60)
        try silent.sendRequest("GET", "/v1/sessions/s/events")
        #expect(try silent.readResponseHead().status == 200)
        // Up to 100,000 edits, for 40 s at most (a debug build on a shared machine is slow).
        let before = Self.residentKiB(daemon)
        var peak = before, edits = 0
        let deadline = Date().addingTimeInterval(40)
        while edits < 100_000 && Date() < deadline {
            #expect(try c.patch("/v1/sessions/s", Self.resize(400 + edits % 2)).status == 200)
            edits += 1
            if edits % 200 == 0 { peak = max(peak, Self.residentKiB(daemon)) }
        }
        peak = max(peak, Self.residentKiB(daemon))
        // Each event is ~20 KB: unbounded, 1,000 edits would be 20 MB in the never-read stream.
        #expect(edits >= 1_000, "only \(edits) edits in 40 s")
        #expect(peak - before < 16 << 10, "RSS grew from \(before) KiB to \(peak) KiB over \(edits) edits")
        #expect(daemon.stderr.contains("the client is not reading; ending the stream"))
        let probe = try daemon.connect(timeoutSeconds: 5)
        let probed = try Self.timed { try probe.get("/healthz") }
        #expect(probed.status == 200 && probed.seconds < 0.1)
    }

    @Test("600 subscribers: a PATCH costs its worker about as much as with none, /healthz meanwhile < 100 ms",
          .timeLimit(.minutes(5)))
    func fanOut() throws {
        let daemon = try Daemon(["--threads", "1", "--max-subscribers-per-session", "1000"])
        let c = try daemon.connect(timeoutSeconds: 60)
        #expect(try c.put("/v1/sessions/s", Self.form(300)).status == 201)
        func patchSeconds(_ rounds: Int) throws -> Double {
            var times: [Double] = []
            for round in 0..<rounds {
                let patched = try Self.timed { try c.patch("/v1/sessions/s", Self.resize(500 + round)) }
                #expect(patched.status == 200)
                times.append(patched.seconds)
            }
            return times.sorted()[rounds / 2]
        }
        let alone = try patchSeconds(5)
        var subscribers: [RawHTTPConnection] = []
        for _ in 0..<600 {
            let s = try daemon.connect(timeoutSeconds: 30)
            try s.sendRequest("GET", "/v1/sessions/s/events")
            subscribers.append(s)
        }
        for s in subscribers { #expect(try s.readResponseHead().status == 200) }
        let watched = try patchSeconds(5)
        // With /healthz right behind a PATCH on the same worker.
        let probe = try daemon.connect(timeoutSeconds: 10)
        try c.sendRequest("PATCH", "/v1/sessions/s", headers: [("Content-Type", "application/merge-patch+json")],
                          body: Array(Self.resize(777).utf8))
        let probed = try Self.timed { try probe.get("/healthz") }
        #expect(probed.status == 200)
        let healthz = probed.seconds
        #expect(try c.readResponse().status == 200)
        print("fan-out: PATCH median \(alone * 1000) ms alone, \(watched * 1000) ms with 600 subscribers; /healthz \(healthz * 1000) ms")
        #expect(watched < alone + 0.1, "PATCH \(watched) s with 600 subscribers against \(alone) s alone")
        #expect(healthz < 0.1 + alone)
        #expect(daemon.process.isRunning)
    }

    @Test("X-Content-Type-Options: nosniff on every answer; the playground has a Content-Security-Policy")
    func headers() throws {
        let daemon = try Daemon()
        let c = try daemon.connect()
        #expect(try c.put("/v1/sessions/s", Self.form(2)).status == 201)
        for path in ["/", "/client.js", "/playground.js", "/healthz", "/nothing", "/v1/sessions/s/render.svg"] {
            let r = try c.get(path)
            #expect(r.header("X-Content-Type-Options") == "nosniff", "\(path)")
        }
        let page = try c.get("/")
        let policy = try #require(page.header("Content-Security-Policy"))
        for directive in ["default-src 'none'", "script-src 'self'", "connect-src 'self'", "style-src 'self' 'unsafe-inline'"] {
            #expect(policy.contains(directive), "\(policy)")
        }
        #expect(!page.text.contains("<script type=\"module\">"), "no inline script: the policy allows none")
        #expect(try c.get("/playground.js").header("Content-Type") == "text/javascript; charset=utf-8")
        // An SSE stream's head and a refusal libevent makes itself.
        let stream = try daemon.connect()
        try stream.sendRequest("GET", "/v1/sessions/s/events")
        #expect(try stream.readResponseHead().header("X-Content-Type-Options") == "nosniff")
        let garbage = try daemon.connect()
        try garbage.send("GARBAGE\r\n\r\n")
        let refused = try garbage.readResponse()
        #expect(refused.status == 400 && refused.header("X-Content-Type-Options") == "nosniff")
    }
}
