import Testing
import LayoutAPI

@Suite("Session expiry and the session limit")
struct ExpiryTests {
    @Test("a session idle for the time-out is gone; every access renews it")
    func idle() {
        let clock = TestClock()
        let c = Client(clock.configuration(timeout: 60))
        c.put("s", Docs.small)
        clock.advance(59)
        #expect(c.send("GET", "/v1/sessions/s").status == 200)
        clock.advance(59)
        #expect(c.patch("/v1/sessions/s", #"{"views": {"root": {"frame": {"width": 90}}}}"#).status == 200)
        clock.advance(59)
        #expect(c.send("GET", "/v1/sessions/s/frames").status == 200)
        clock.advance(60)
        T.expectProblem(c.send("GET", "/v1/sessions/s"), 404, type: "session-not-found")
        T.expectProblem(c.patch("/v1/sessions/s", "{}"), 404)
        // The id is free again: PUT creates.
        #expect(c.put("s", Docs.small).status == 201)
    }

    @Test("sweep() drops every idle session and reports how many")
    func sweep() {
        let clock = TestClock()
        let c = Client(clock.configuration(timeout: 60))
        for i in 0..<3 { c.put("s\(i)", Docs.small) }
        clock.advance(30)
        c.send("GET", "/v1/sessions/s0")
        clock.advance(40)
        #expect(c.api.sweep() == 2)
        #expect(c.api.sessionCount == 1)
        clock.advance(60)
        #expect(c.api.sweep() == 1)
        #expect(c.api.sessionCount == 0)
    }

    @Test("a time-out of 0 never expires sessions")
    func never() {
        let clock = TestClock()
        let c = Client(clock.configuration(timeout: 0))
        c.put("s", Docs.small)
        clock.advance(1e9)
        #expect(c.api.sweep() == 0)
        #expect(c.send("GET", "/v1/sessions/s").status == 200)
    }

    @Test("at the session limit a create answers 429 until a session is deleted or expires")
    func limit() {
        let clock = TestClock()
        let c = Client(clock.configuration(timeout: 60, maxSessions: 2))
        #expect(c.send("POST", "/v1/sessions", body: Docs.small).status == 201)
        #expect(c.put("b", Docs.small).status == 201)
        T.expectProblem(c.send("POST", "/v1/sessions", body: Docs.small), 429, type: "too-many-sessions")
        T.expectProblem(c.put("c", Docs.small), 429)
        // Replacing an existing session is not a new one.
        #expect(c.put("b", Docs.stack).status == 200)
        #expect(c.send("DELETE", "/v1/sessions/b").status == 204)
        #expect(c.put("c", Docs.small).status == 201)
        T.expectProblem(c.put("d", Docs.small), 429)
        clock.advance(61)
        #expect(c.put("d", Docs.small).status == 201)
        #expect(c.api.sessionCount == 1)
    }
}
