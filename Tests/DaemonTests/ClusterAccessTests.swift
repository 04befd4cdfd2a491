import Foundation
import JSON
import Testing
import TestSupport

/// Access control on a cluster (issue 29): every node reads the same keys file, so a key revoked
/// with `layoutd keys revoke` stops working on every node, without a restart, while requests flow
/// through nginx. A cluster of its own (`scripts/cluster up --api-keys FILE`, in a private state
/// directory): the one scripts/test starts serves without keys, as its other tests expect.
@Suite("cluster with API keys", .serialized, .enabled(if: Cluster.isConfigured, "scripts/test starts the clusters (LAYOUTD_TEST_CLUSTER)"))
struct ClusterAccessTests {
    static let doc = #"{"views":{"root":{"frame":{"width":100,"height":100}},"a":{"parent":"root"}},"constraints":["a.edges == root.edges"]}"#

    @Test("a key revoked while requests flow through nginx answers 401 on every node within 2 s; the other tenant's key keeps working")
    func revokedKeyRefusedEverywhere() throws {
        let dir = try TemporaryDirectory()
        let file = dir.url.appendingPathComponent("api-keys").path
        let alice = try AccessControlDaemonTests.newKey("alice", file: file)
        let bob = try AccessControlDaemonTests.newKey("bob", file: file)
        let state = ["LAYOUTD_CLUSTER_DIR": dir.url.appendingPathComponent("cluster").path]
        let line = try Cluster.script(["up", "--nodes", "3", "--port", "0", "--binary", try LayoutdBinary.locate().path,
                                       "--api-keys", file], environment: state, timeout: 180)
        defer {
            do { try Cluster.script(["down", "--purge"], environment: state) } catch { Issue.record("scripts/cluster down: \(error)") }
        }
        let cluster = try Cluster.parse(line)
        let asAlice = AccessControlDaemonTests.bearer(alice), asBob = AccessControlDaemonTests.bearer(bob)

        // Keys work through nginx and on every node: alice's session is hers everywhere, bob's key
        // finds nothing under its id, and no key is refused.
        let created = try cluster.nginx().post("/v1/sessions", Self.doc, headers: asAlice)
        #expect(created.status == 201, "\(created.status) \(created.text.prefix(200))")
        let id = try #require(try created.json()["id"]?.stringValue)
        #expect(try cluster.nginx().get("/v1/sessions/\(id)").status == 401)
        for node in cluster.nodes {
            let status = try eventually(timeout: 10, pollEvery: 0.05, { try cluster.connect(node).get("/v1/sessions/\(id)", headers: asAlice).status },
                                        satisfies: { $0 == 200 })
            #expect(status == 200, "\(node.name) with alice's key")
            #expect(try cluster.connect(node).get("/v1/sessions/\(id)", headers: asBob).status == 404, "\(node.name) with bob's key")
        }

        // Requests keep flowing through nginx with alice's key while the key is revoked.
        let flow = RequestFlow(port: cluster.port, target: "/v1/sessions/\(id)", headers: asAlice)
        #expect(flow.awaitAnswers(20, timeout: 10), "no requests flowed through nginx: \(flow.statuses)")
        let revoked = try LayoutdBinary.run(["keys", "revoke", "alice", "--file", file])
        let revokedAt = Date()
        #expect(revoked.status == 0, "keys revoke: \(revoked.stderr)")

        // Every node, and nginx, refuse the key within 2 s of the file's change.
        func refusals() throws -> [String: Int] {
            var out = ["nginx": try cluster.nginx(timeout: 2).get("/v1/sessions/\(id)", headers: asAlice).status]
            for node in cluster.nodes { out[node.name] = try cluster.connect(node, timeout: 2).get("/v1/sessions/\(id)", headers: asAlice).status }
            return out
        }
        let answers = try eventually(timeout: 2, pollEvery: 0.02, refusals, satisfies: { $0.values.allSatisfy { $0 == 401 } })
        let elapsed = Date().timeIntervalSince(revokedAt)
        #expect(answers.values.allSatisfy { $0 == 401 }, "after \(elapsed) s: \(answers.sorted { $0.key < $1.key })")
        #expect(elapsed <= 2.5, "the revocation took \(elapsed) s to reach every node")
        let refused = try cluster.connect(cluster.nodes[0]).get("/v1/sessions/\(id)", headers: asAlice)
        #expect(refused.header("WWW-Authenticate")?.hasPrefix("Bearer realm=\"layoutd\"") == true)
        #expect(refused.problemType == "/problems/unauthorized")
        #expect(!refused.text.contains(alice), "the key is in the problem body")

        // The flow went from 200 to 401 and never answered anything else (no 5xx on the way).
        #expect(flow.awaitAnswers(flow.statuses.count + 10, timeout: 5))
        let statuses = flow.stop()
        #expect(Set(statuses).isSubset(of: [200, 401]), "\(Dictionary(grouping: statuses, by: { $0 }).mapValues(\.count))")
        #expect(statuses.first == 200 && statuses.last == 401, "first \(statuses.first ?? 0), last \(statuses.last ?? 0)")
        if let firstRefusal = statuses.firstIndex(of: 401) {
            #expect(!statuses[firstRefusal...].contains(200), "a node answered alice's key after another had refused it for good")
        }

        // Bob's key was not touched: it still works on every node.
        for node in cluster.nodes {
            #expect(try cluster.connect(node).post("/v1/solve", Self.doc, headers: asBob).status == 200, "\(node.name) with bob's key")
        }
        // No node logged a key (the access log names keys: alice, bob).
        let logs = try FileManager.default.contentsOfDirectory(atPath: state["LAYOUTD_CLUSTER_DIR"]! + "/nodes")
            .filter { $0.hasSuffix(".log") }
            .map { try String(contentsOfFile: state["LAYOUTD_CLUSTER_DIR"]! + "/nodes/" + $0, encoding: .utf8) }
        #expect(logs.count == cluster.nodes.count)
        #expect(logs.contains { $0.contains("key=alice") }, "no access line names alice's key")
        #expect(!logs.contains { $0.contains(alice) || $0.contains(bob) }, "a key reached a node's log")
    }
}

/// GET `target` through one keep-alive connection after another, as fast as they answer, on a
/// thread of its own; records each status in order (0 when the connection failed).
final class RequestFlow: @unchecked Sendable {
    private let lock = NSLock()
    private var answers: [Int] = []
    private var stopped = false
    private let done = DispatchSemaphore(value: 0)

    init(port: Int, target: String, headers: [(String, String)]) {
        Thread.detachNewThread { [self] in
            defer { done.signal() }
            var connection: RawHTTPConnection?
            while !lock.withLock({ stopped }) {
                let reused = connection != nil
                do {
                    let c = try connection ?? RawHTTPConnection(port: port, timeoutSeconds: 5)
                    connection = c
                    let r = try c.get(target, headers: headers)
                    if r.header("Connection")?.lowercased() == "close" { connection = nil }
                    lock.withLock { answers.append(r.status) }
                } catch {
                    connection = nil
                    // A kept-alive connection the server closed meanwhile is no failure: ask again
                    // on a new one. A new one that fails is.
                    if !reused { lock.withLock { answers.append(0) } }
                }
                usleep(2_000)  // a pace (about 300 requests a second), not a wait for a condition
            }
        }
    }

    var statuses: [Int] { lock.withLock { answers } }

    func awaitAnswers(_ count: Int, timeout: Double) -> Bool {
        eventually(timeout: timeout, pollEvery: 0.01) { statuses.count >= count }
    }

    /// Stops the flow; the statuses it recorded.
    func stop() -> [Int] {
        lock.withLock { stopped = true }
        _ = done.wait(timeout: .now() + 10)
        return statuses
    }
}
