import Foundation
import JSON
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// What an operator does to a running cluster (docs/deploy.md): reload nginx, add and drain a node,
/// pin ports, keep a hand-made nginx change, all under a PATCH load whose every acknowledged change
/// must be in the final documents. Each test runs a cluster of its own (scripts/cluster in a private
/// state directory): reloads and drains would disturb the shared one's other tests.
@Suite("cluster operations: reload, add, drain", .serialized, .enabled(if: Cluster.isConfigured, "scripts/test starts the clusters (LAYOUTD_TEST_CLUSTER)"))
struct ClusterOpsTests {
    /// A cluster in a private state directory, brought down (and its directory removed) at the end.
    final class OwnCluster {
        let dir: TemporaryDirectory
        let state: [String: String]
        var cluster: Cluster
        var line: String

        init(_ arguments: [String]) throws {
            dir = try TemporaryDirectory()
            state = ["LAYOUTD_CLUSTER_DIR": dir.url.appendingPathComponent("cluster").path]
            line = try Cluster.script(["up", "--binary", try LayoutdBinary.locate().path] + arguments, environment: state, timeout: 180)
            cluster = try Cluster.parse(line)
        }

        @discardableResult
        func script(_ arguments: [String]) throws -> String {
            let out = try Cluster.script(arguments, environment: state, timeout: 120)
            if let json = out.split(separator: "\n").last(where: { $0.hasPrefix("{") }) {
                line = String(json)
                cluster = try Cluster.parse(line)
            }
            return out
        }

        var nginxDir: String { state["LAYOUTD_CLUSTER_DIR"]! + "/nginx" }

        deinit {
            do { try Cluster.script(["down", "--purge"], environment: state) } catch { Issue.record("scripts/cluster down: \(error)") }
        }
    }

    /// One client per session PATCHing through nginx with `If-Match` of the revision it holds, one
    /// request in flight each. A request whose kept-alive connection closed before any answer (what
    /// a reload does to idle client connections) is sent again once on a new connection, with the
    /// same If-Match: it cannot apply twice. The ledger records the final answer of each PATCH.
    final class IfMatchLoad: @unchecked Sendable {
        let ledgers: [String: ClusterLedger]
        private let lock = NSLock()
        private var stopped = false
        private var resentAnswers: [Int] = []
        private let group = DispatchGroup()

        init(port: Int, ids: [String]) {
            ledgers = Dictionary(uniqueKeysWithValues: ids.map { ($0, ClusterLedger()) })
            for (id, ledger) in ledgers {
                group.enter()
                Thread.detachNewThread { [self] in
                    defer { group.leave() }
                    var c: RawHTTPConnection?
                    var etag = try? RawHTTPConnection(port: port).get("/v1/sessions/\(id)").header("ETag")
                    var i = 0
                    while !isStopped {
                        let patch = ClusterTests.Failover.patch(i)
                        i += 1
                        var r: RawHTTPResponse?
                        for attempt in 0..<2 {
                            let reused = c != nil
                            if c == nil { c = try? RawHTTPConnection(port: port, timeoutSeconds: 10) }
                            r = try? c?.patch("/v1/sessions/\(id)", patch, headers: etag.map { [("If-Match", $0)] } ?? [])
                            if r != nil {
                                if attempt == 1 { lock.withLock { resentAnswers.append(r!.status) } }
                                break
                            }
                            c = nil
                            // Only a kept-alive connection closed under the request is sent again.
                            if !reused { break }
                        }
                        ledger.record(patch, r)
                        if let r, r.status == 200 {
                            etag = r.header("ETag")
                        } else {
                            // 412 after a resend (the first attempt was applied), or a failure: the
                            // session's revision as it is now. (The pause is a back-off, not a wait.)
                            c = nil
                            usleep(5_000)
                            etag = (try? RawHTTPConnection(port: port).get("/v1/sessions/\(id)").header("ETag")) ?? etag
                        }
                        if r?.header("Connection")?.lowercased() == "close" { c = nil }
                    }
                }
            }
        }

        private var isStopped: Bool { lock.withLock { stopped } }

        /// The statuses of the requests sent a second time.
        var resent: [Int] { lock.withLock { resentAnswers } }

        func awaitProgress(_ count: Int, timeout: Double) -> Bool {
            let targets = ledgers.mapValues { $0.acknowledged + count }
            return eventually(timeout: timeout, pollEvery: 0.01) { ledgers.allSatisfy { $0.value.acknowledged >= targets[$0.key]! } }
        }

        func stop() {
            lock.withLock { stopped = true }
            _ = group.wait(timeout: .now() + 30)
        }

        /// Every session's document at its revision is the replay of exactly what was acknowledged
        /// (plus failed PATCHes the store took), and what failed.
        func check(_ cluster: Cluster, bases: [String: [UInt8]]) throws -> [Int] {
            var failures: [Int] = []
            for (id, ledger) in ledgers {
                let entries = ledger.all
                failures += entries.filter { $0.revision == nil }.map(\.status)
                let (document, revision) = try Cluster.document(try cluster.nginx(), id)
                #expect(try ClusterLedger.replays(entries, base: try #require(bases[id]), to: document, revision: revision),
                        "\(id): the document at revision \(revision) is not the replay of what was acknowledged: \(ClusterLedger.summary(entries))")
            }
            return failures
        }
    }

    /// No PATCH failed, but for a 412 that answered a resend whose first attempt had been applied
    /// (the replay check counted it in); every resend answered 200 or that 412.
    static func expectNoFailures(_ failures: [Int], resent: [Int], _ when: String) {
        #expect(failures.allSatisfy { $0 == 412 }, "PATCHes that failed \(when): \(failures)")
        #expect(failures.count <= resent.filter { $0 == 412 }.count, "412s not explained by a resend \(when): \(failures), resends \(resent)")
        #expect(resent.allSatisfy { [200, 412].contains($0) }, "resent PATCHes answered \(resent)")
    }

    /// `count` sessions of Documents.card created through nginx; their base documents.
    static func sessions(_ cluster: Cluster, _ prefix: String, _ count: Int) throws -> [String: [UInt8]] {
        var bases: [String: [UInt8]] = [:]
        for _ in 0..<count {
            let id = Cluster.newID(prefix)
            let c = try cluster.nginx()
            #expect(try c.put("/v1/sessions/\(id)", Documents.card).status == 201)
            bases[id] = try Cluster.document(c, id).document
        }
        return bases
    }

    @Test("nginx reloaded 5 times under an 8-connection If-Match PATCH load: no PATCH fails, every acknowledged one is in the final documents")
    func reloadUnderLoad() throws {
        let own = try OwnCluster(["--nodes", "2", "--port", "0"])
        let bases = try Self.sessions(own.cluster, "reload", 8)
        let load = IfMatchLoad(port: own.cluster.port, ids: Array(bases.keys))
        #expect(load.awaitProgress(10, timeout: 60), "the load runs before the reloads")
        for _ in 0..<5 {
            try own.script(["reload"])
            #expect(load.awaitProgress(5, timeout: 30), "every session goes on after a reload")
        }
        load.stop()
        let failures = try load.check(own.cluster, bases: bases)
        let resent = load.resent
        Self.expectNoFailures(failures, resent: resent, "across the reloads")
        let total = load.ledgers.values.map(\.all.count).reduce(0, +)
        print("cluster ops: 5 nginx reloads under 8 If-Match PATCH clients: \(total) PATCHes, \(resent.count) sent again after their kept-alive connection closed (answers \(Dictionary(grouping: resent, by: { $0 }).mapValues(\.count))), \(failures.count) failed")
    }

    @Test("scripts/cluster --port-base pins every port; add and drain a node under load lose nothing; a hand-made nginx file survives an nginx restart")
    func pinnedPortsAddDrainAndIncludes() throws {
        let base = try Self.freePortRange(14)
        let own = try OwnCluster(["--nodes", "2", "--port-base", String(base)])
        let line = try JSONParser.parse(Array(own.line.utf8))
        #expect(own.cluster.port == base)
        #expect(own.cluster.nodes.map(\.port) == [base + 11, base + 12])
        #expect(line["internal"]?.stringValue == "http://127.0.0.1:\(base + 1)")
        #expect(own.cluster.postgres.contains(":\(base + 2)/"), "\(own.cluster.postgres)")

        // A hand-made file in the include dir, and scripts/cluster's own node-header.conf removed:
        // both kept as they are across a stop and start of nginx.
        let publicDir = own.nginxDir + "/layoutd.d/public"
        try FileManager.default.removeItem(atPath: publicDir + "/node-header.conf")
        try "add_header X-Hand-Made kept always;\n".write(toFile: publicDir + "/hand-made.conf", atomically: true, encoding: .utf8)
        try own.script(["stop", "nginx"])
        try own.script(["start", "nginx"])
        let seen = try own.cluster.nginx().get("/healthz")
        #expect(seen.header("X-Hand-Made") == "kept" && seen.header("X-Layoutd-Node") == nil, "\(seen.headers)")
        let internalPort = base + 1
        let fromInside = try RawHTTPConnection(port: internalPort).get("/healthz")
        #expect(fromInside.header("X-Layoutd-Node") != nil, "the internal server names the node")

        /// The port of the node the internal server's hash sends a session to (the same hash as the
        /// public one's), and its name.
        func homePort(_ id: String) throws -> Int? {
            let r = try RawHTTPConnection(port: internalPort).get("/v1/sessions/\(id)")
            guard let tried = r.header("X-Layoutd-Node")?.split(separator: ",").last else { return nil }
            return Int(tried.split(separator: ":").last ?? "")
        }
        func home(_ id: String) throws -> String? {
            let port = try homePort(id)
            return own.cluster.nodes.first { $0.port == port }?.name
        }

        var bases = try Self.sessions(own.cluster, "ops", 12)
        let load = IfMatchLoad(port: own.cluster.port, ids: Array(bases.keys))
        #expect(load.awaitProgress(5, timeout: 60))

        // Add: node3 on its pinned port takes a share of new sessions.
        try own.script(["add", "node3"])
        #expect(own.cluster.nodes.map(\.name) == ["node1", "node2", "node3"])
        #expect(own.cluster.nodes.last?.port == base + 13)
        let more = try Self.sessions(own.cluster, "added", 24)
        let homes = try more.keys.map { try home($0) }
        #expect(homes.contains("node3"), "no new session went to node3: \(homes)")
        #expect(load.awaitProgress(5, timeout: 30), "the load goes on after the add")

        // Drain node1 under the load: it stops, nothing is sent to it, every session answers.
        let drainedPort = base + 11
        try own.script(["drain", "node1"])
        #expect(own.cluster.nodes.map(\.name) == ["node2", "node3"])
        #expect((try? RawHTTPConnection(port: drainedPort, timeoutSeconds: 2)) == nil, "node1 still accepts connections after its drain")
        #expect(load.awaitProgress(5, timeout: 30), "the load goes on after the drain")
        load.stop()
        Self.expectNoFailures(try load.check(own.cluster, bases: bases), resent: load.resent, "across add and drain")
        for id in more.keys { bases[id] = more[id] }
        for id in bases.keys {
            let r = try own.cluster.nginx().get("/v1/sessions/\(id)")
            #expect(r.status == 200, "\(id) after the drain: \(r.status)")
            #expect(try homePort(id) != drainedPort, "\(id) still sent to the drained node")
        }
        // The hand-made file survived add and drain (each reloads nginx with the file written again).
        #expect(try own.cluster.nginx().get("/healthz").header("X-Hand-Made") == "kept")
    }

    /// A first port B with B…B+count-1 all free now, from a random start (pinned ports must not
    /// clash with other tests' free ports, which the kernel picks from its ephemeral range).
    static func freePortRange(_ count: Int) throws -> Int {
        for _ in 0..<50 {
            let base = Int.random(in: 20_000...30_000)
            if (0..<count).allSatisfy({ (try? RawHTTPConnection(port: base + $0, timeoutSeconds: 1)) == nil && Self.canBind(base + $0) }) {
                return base
            }
        }
        throw TestFailure("no \(count) free ports in a row")
    }

    static func canBind(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}
