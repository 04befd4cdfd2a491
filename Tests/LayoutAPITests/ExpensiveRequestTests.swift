import TestSupport
import Testing
import LayoutAPI
import Storage

/// `LayoutAPI.isExpensive`: what the daemon answers off its worker's loop.
@Suite("isExpensive: a large body, or the wake of a large dormant session")
struct ExpensiveRequestTests {
    static func request(_ method: String, _ path: String, body: [UInt8] = []) -> APIRequest {
        APIRequest(method: method, path: path, query: "", headers: [], body: body)
    }

    @Test("large bodies and wakes of large dormant sessions are expensive; DELETE, small and resident ones are not")
    func decisions() {
        let c = Client(APIConfiguration(maxResidentSessions: 1, expensiveBytes: 2_000))
        let big = DeepChain.document(40)
        #expect(big.utf8.count >= 2_000)
        #expect(c.put("big", big).status == 201)
        #expect(c.put("small", Docs.small).status == 201)  // puts "big" to sleep (one resident)
        let api = c.api
        #expect(api.isExpensive(Self.request("PATCH", "/v1/sessions/big", body: Array("{}".utf8))))
        for path in ["/v1/sessions/big", "/v1/sessions/big/frames", "/v1/sessions/big/render.svg", "/v1/sessions/big/events"] {
            #expect(api.isExpensive(Self.request("GET", path)), "\(path)")
        }
        #expect(!api.isExpensive(Self.request("DELETE", "/v1/sessions/big")))
        #expect(!api.isExpensive(Self.request("OPTIONS", "/v1/sessions/big")))
        #expect(!api.isExpensive(Self.request("GET", "/v1/sessions/small")))
        #expect(!api.isExpensive(Self.request("GET", "/v1/sessions/nobody")))
        #expect(!api.isExpensive(Self.request("GET", "/healthz")))
        #expect(api.isExpensive(Self.request("POST", "/v1/solve", body: Array(big.utf8))))
        #expect(!api.isExpensive(Self.request("POST", "/v1/solve", body: Array(Docs.small.utf8))))
        // Asking wakes nothing; the events handler wakes it (off the loop, when offloaded).
        #expect(api.isExpensive(Self.request("GET", "/v1/sessions/big/events")))
        #expect(c.send("GET", "/v1/sessions/big/events").status == 200)
        #expect(!api.isExpensive(Self.request("GET", "/v1/sessions/big/events")))
    }

    @Test("with a store, a session not in memory is expensive (read, replayed and solved); once woken it is not")
    func storedSessionsAreExpensiveUntilWoken() {
        let storage = MemorySessionStorage()
        let first = Client(api: LayoutAPI(configuration: APIConfiguration(), storage: storage))
        #expect(first.put("s", Docs.small).status == 201)
        // The same store after a restart: nothing in memory yet.
        let restarted = Client(api: LayoutAPI(configuration: APIConfiguration(), storage: storage))
        let api = restarted.api
        #expect(api.isExpensive(Self.request("GET", "/v1/sessions/s")))
        #expect(api.isExpensive(Self.request("PATCH", "/v1/sessions/s", body: Array("{}".utf8))))
        // Any write may wait for the store: never on an event loop (issue 28).
        #expect(api.isExpensive(Self.request("DELETE", "/v1/sessions/s")))
        #expect(restarted.send("GET", "/v1/sessions/s").status == 200)
        #expect(!api.isExpensive(Self.request("GET", "/v1/sessions/s")))
        // Without a store an unknown id is a cheap 404.
        #expect(!Client(APIConfiguration()).api.isExpensive(Self.request("GET", "/v1/sessions/nobody")))
    }
}
