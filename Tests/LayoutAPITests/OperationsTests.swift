import Foundation
import JSON
import LayoutAPI
import Storage
import Telemetry
import Testing
import TestSupport

/// The operator side of the API (issue 23): request ids on every answer, `/readyz`, `/metrics`.
@Suite("LayoutAPI: request ids, readiness and metrics")
struct OperationsTests {
    /// The value of the sample `name{labels}` exactly as written in `text` (nil when absent).
    static func sample(_ text: String, _ series: String) -> Double? {
        for line in text.split(separator: "\n") where line.hasPrefix(series + " ") {
            return Double(line.dropFirst(series.count + 1))
        }
        return nil
    }

    static func isGenerated(_ id: String?) -> Bool {
        guard let id else { return false }
        return id.utf8.count == 16 && id.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    @Test("a client's X-Request-Id of visible ASCII comes back on the answer and in the problem body")
    func clientRequestIDIsKept() throws {
        let c = Client()
        let id = "req-42/α".replacingOccurrences(of: "α", with: "\"quoted\\\"")
        let r = c.send("GET", "/v1/sessions/missing", headers: [("x-request-id", id)])
        #expect(r.status == 404)
        #expect(r.header("X-Request-Id") == id)
        #expect(T.json(r)["requestId"]?.stringValue == id)
        let longest = String(repeating: "a", count: 200)
        #expect(c.send("GET", "/healthz", headers: [("X-Request-Id", longest)]).header("X-Request-Id") == longest)
    }

    @Test("an absent or invalid X-Request-Id is replaced by 16 hex digits, a new one per request",
          arguments: [nil, "", "has space", "tab\there", String(repeating: "b", count: 201), "é", "del\u{7F}"])
    func invalidRequestIDIsReplaced(_ given: String?) throws {
        let c = Client()
        let headers = given.map { [("X-Request-Id", $0)] } ?? []
        let a = c.send("GET", "/healthz", headers: headers), b = c.send("GET", "/healthz", headers: headers)
        #expect(Self.isGenerated(a.header("X-Request-Id")), "\(a.header("X-Request-Id") ?? "none")")
        #expect(Self.isGenerated(b.header("X-Request-Id")))
        #expect(a.header("X-Request-Id") != b.header("X-Request-Id"))
    }

    @Test("every kind of answer carries X-Request-Id: success, problem, 404, 405, OPTIONS, event stream")
    func everyAnswerCarriesTheID() throws {
        let c = Client()
        c.put("s", Docs.small)
        let answers = [
            c.send("GET", "/v1/sessions/s"),
            c.patch("/v1/sessions/s", "{"),
            c.send("GET", "/nowhere"),
            c.send("DELETE", "/healthz"),
            c.send("OPTIONS", "/v1/sessions/s"),
            c.send("GET", "/v1/sessions/s/events"),
            c.send("GET", "/readyz"),
            c.send("GET", "/metrics"),
        ]
        for r in answers {
            #expect(Self.isGenerated(r.header("X-Request-Id")), "status \(r.status)")
            if r.header("Content-Type") == "application/problem+json" {
                #expect(T.json(r)["requestId"]?.stringValue == r.header("X-Request-Id"), "\(r.text)")
            }
        }
        #expect(answers.map(\.status) == [200, 400, 404, 405, 204, 200, 200, 200])
        #expect(answers[5].stream != nil)
    }

    @Test("a browser may send X-Request-Id and read it back (CORS)")
    func corsAllowsTheHeader() {
        let c = Client(APIConfiguration(corsOrigins: ["https://app.example"]))
        let preflight = c.send("OPTIONS", "/v1/sessions", headers: [
            ("Origin", "https://app.example"), ("Access-Control-Request-Method", "POST"),
            ("Access-Control-Request-Headers", "x-request-id")])
        #expect(preflight.header("Access-Control-Allow-Headers")?.contains("X-Request-Id") == true)
        let r = c.send("GET", "/healthz", headers: [("Origin", "https://app.example")])
        #expect(r.header("Access-Control-Expose-Headers")?.contains("X-Request-Id") == true)
    }

    @Test("/readyz is ready without a store, and with a store that answers")
    func readyWithStore() throws {
        #expect(Client().send("GET", "/readyz").text == #"{"status":"ready"}"#)
        let storage = MemorySessionStorage()
        let c = Client(api: LayoutAPI(storage: storage))
        let r = c.send("GET", "/readyz")
        #expect(r.status == 200)
        #expect(r.text == #"{"status":"ready"}"#)
        #expect(c.send("HEAD", "/readyz").status == 200)
        #expect(c.send("GET", "/healthz").status == 200)
    }

    @Test("/readyz answers 503 with Retry-After once the store stops answering, asking it at most once a second")
    func notReadyWhenStoreCloses() throws {
        let storage = MemorySessionStorage()
        let c = Client(api: LayoutAPI(storage: storage))
        #expect(c.send("GET", "/readyz").status == 200)
        storage.close()
        // Within the second after the check the answer is the remembered one: pollers cost nothing.
        let started = Date()
        let cached = c.send("GET", "/readyz").status
        if Date().timeIntervalSince(started) < 0.5 { #expect(cached == 200) }
        let r = eventually(pollEvery: 0.05, { c.send("GET", "/readyz") }, satisfies: { $0.status != 200 })
        #expect(r.status == 503)
        #expect(r.header("Retry-After") == "1")
        #expect(r.header("Content-Type") == "application/problem+json")
        #expect(T.json(r)["type"]?.stringValue == "/problems/not-ready")
        #expect(T.json(r)["requestId"]?.stringValue == r.header("X-Request-Id"))
        #expect(Date().timeIntervalSince(started) >= 0.5)
        // /healthz stays "alive".
        #expect(c.send("GET", "/healthz").status == 200)
    }

    @Test("/metrics is Prometheus text and counts a PATCH's solver work")
    func metricsCountSolverWork() throws {
        let c = Client()
        c.put("m", Docs.small)
        let before = c.send("GET", "/metrics")
        #expect(before.status == 200)
        #expect(before.header("Content-Type") == "text/plain; version=0.0.4; charset=utf-8")
        let edits = Self.sample(before.text, "layoutd_solver_edits_total") ?? -1
        let constants = Self.sample(before.text, "layoutd_solver_constant_changes_total") ?? -1
        #expect(c.patch("/v1/sessions/m", #"{"constraints": {"c1": {"constant": 7}}}"#).status == 200)
        let after = c.send("GET", "/metrics").text
        // Other tests may run meanwhile in this process: at least this PATCH's work.
        #expect((Self.sample(after, "layoutd_solver_edits_total") ?? 0) >= edits + 1)
        #expect((Self.sample(after, "layoutd_solver_constant_changes_total") ?? 0) >= constants + 1)
        #expect(Self.sample(after, #"layoutd_sessions{state="resident"}"#) == 1)
        #expect(Self.sample(after, #"layoutd_sessions{state="dormant"}"#) == 0)
        #expect(Self.sample(after, #"layoutd_sessions{state="stored"}"#) == nil)
        #expect(after.contains("# TYPE layoutd_sse_subscribers gauge"))
    }

    @Test("/metrics of an API with a store: sessions stored, store latency by operation, errors by kind")
    func metricsCountStoreCalls() throws {
        let storage = FlakyStorage()
        let c = Client(api: LayoutAPI(storage: storage))
        let first = c.send("GET", "/metrics").text
        let creates = Self.sample(first, #"layoutd_store_operation_duration_seconds_count{operation="create"}"#) ?? -1
        let ioErrors = Self.sample(first, #"layoutd_store_errors_total{kind="io"}"#) ?? -1
        #expect(c.put("a", Docs.small).status == 201)
        storage.fail(true)
        #expect(c.patch("/v1/sessions/a", #"{"constraints": {"c1": {"constant": 7}}}"#).status == 503)
        let text = c.send("GET", "/metrics").text
        #expect(Self.sample(text, #"layoutd_sessions{state="stored"}"#) == 1)
        #expect((Self.sample(text, #"layoutd_store_operation_duration_seconds_count{operation="create"}"#) ?? 0) >= creates + 1)
        #expect((Self.sample(text, #"layoutd_store_errors_total{kind="io"}"#) ?? 0) >= ioErrors + 1)
        #expect(text.contains(#"layoutd_store_operation_duration_seconds_bucket{operation="append_patch",le="+Inf"}"#))
    }

    @Test("/metrics counts a fenced write as a fencing conflict, not as a store error")
    func fencedWritesCountedApart() throws {
        let storage = FencingStorage()
        let c = Client(api: LayoutAPI(storage: storage))
        let first = c.send("GET", "/metrics").text
        let conflicts = Self.sample(first, "layoutd_store_fencing_conflicts_total") ?? -1
        #expect(conflicts >= 0, "the family is there with a store: \(first)")
        #expect(c.put("a", Docs.small).status == 201)
        storage.fence(true)
        #expect(c.patch("/v1/sessions/a", #"{"constraints": {"c1": {"constant": 7}}}"#).status == 409)
        let text = c.send("GET", "/metrics").text
        // Other tests may run meanwhile in this process: at least this PATCH's conflict.
        #expect((Self.sample(text, "layoutd_store_fencing_conflicts_total") ?? 0) >= conflicts + 1)
        #expect(!text.contains(#"kind="conflict""#), "no conflict kind among the store errors")
        #expect(text.contains("# TYPE layoutd_store_fencing_conflicts_total counter"))
    }

    @Test("sharded counters add up exactly over many threads")
    func shardedCountersAreExact() {
        let counters = ShardedCounters(count: 3)
        DispatchQueue.concurrentPerform(iterations: 16) { _ in
            for _ in 0..<10_000 {
                counters.add(0)
                counters.add(2, 3)
            }
        }
        #expect(counters.values() == [160_000, 0, 480_000])
    }

    @Test("latency buckets: a duration falls in the first bucket whose bound it does not exceed")
    func latencyBuckets() {
        #expect(LatencyBuckets.bucket(ofNanoseconds: 0) == 0)
        #expect(LatencyBuckets.bucket(ofNanoseconds: 50_000) == 0)
        #expect(LatencyBuckets.bucket(ofNanoseconds: 50_001) == 1)
        #expect(LatencyBuckets.bucket(ofNanoseconds: 10_000_000_000) == LatencyBuckets.nanoseconds.count - 1)
        #expect(LatencyBuckets.bucket(ofNanoseconds: 10_000_000_001) == LatencyBuckets.nanoseconds.count)
        #expect(LatencyBuckets.labels.first == "0.00005")
        #expect(LatencyBuckets.labels.last == "+Inf")
        #expect(LatencyBuckets.labels[LatencyBuckets.labels.count - 2] == "10")
        // The written-out comparisons agree with the bounds, on and around each.
        #expect(LatencyBuckets.countersPerHistogram == LatencyBuckets.nanoseconds.count + 2)
        for (i, bound) in LatencyBuckets.nanoseconds.enumerated() {
            #expect(LatencyBuckets.bucket(ofNanoseconds: bound - 1) == i)
            #expect(LatencyBuckets.bucket(ofNanoseconds: bound) == i)
            #expect(LatencyBuckets.bucket(ofNanoseconds: bound + 1) == i + 1)
        }
    }
}

/// A store whose patch writes are fenced off on demand (another writer changed the session).
final class FencingStorage: ForwardingStorage, @unchecked Sendable {
    private let lock = NSLock()
    private var fencing = false
    init() { super.init(MemorySessionStorage()) }
    func fence(_ on: Bool) { lock.withLock { fencing = on } }

    override func appendPatch(id: String, generation: UInt64, revision: Int, patch: [UInt8],
                              delegates: [String: Bool]?, base: UInt64?) throws(StorageError) -> AppendResult {
        if lock.withLock({ fencing }) {
            throw .conflict(Conflict(id: id, expectedGeneration: generation, expectedRevision: revision - 1,
                                     storedGeneration: generation, storedRevision: revision))
        }
        return try super.appendPatch(id: id, generation: generation, revision: revision, patch: patch, delegates: delegates,
                                     base: base)
    }
}
