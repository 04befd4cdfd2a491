import Foundation
import JSON
import LayoutModel
import Testing
import TestSupport

/// Several layoutd nodes behind nginx on one PostgreSQL (issue 22), on the real cluster that
/// scripts/test starts (`scripts/cluster up --nodes 3`). Serialized, and the nested suites with it:
/// some tests kill nodes, and each puts the cluster back as it found it before it ends.
@Suite("cluster", .serialized, .enabled(if: Cluster.isConfigured, "scripts/test starts the cluster (LAYOUTD_TEST_CLUSTER)"))
struct ClusterTests {
    @Test("a session created, edited and read through nginx and through each node answers the same everywhere")
    func sameAnswersEverywhere() throws {
        let cluster = try Cluster.current()
        let nginx = try cluster.nginx()
        let created = try nginx.post("/v1/sessions", Documents.card)
        #expect(created.status == 201)
        let id = try #require(try created.json()["id"]?.stringValue)
        #expect(created.header("Location") == "/v1/sessions/\(id)")
        try cluster.awaitSameEverywhere(id, revision: 1)

        // An edit through nginx, then one through each node directly, each read everywhere.
        var revision = 1
        let edits: [(String, String)] = [("nginx", #"{"constraints":{"card-height":{"constant":260}}}"#)]
            + cluster.nodes.enumerated().map { ($1.name, #"{"views":{"root":{"frame":{"width":\#(400 + 10 * $0)}}}}"#) }
        for (via, patch) in edits {
            let c = via == "nginx" ? nginx : try cluster.connect(try #require(cluster.nodes.first { $0.name == via }))
            let r = try c.patch("/v1/sessions/\(id)", patch)
            revision += 1
            #expect(r.status == 200 && r.header("ETag").etagRevision == revision, "PATCH through \(via): \(r.status) \(r.text.prefix(200))")
            try cluster.awaitSameEverywhere(id, revision: revision)
        }
        // A PUT through the last node replaces the document everywhere.
        let last = try #require(cluster.nodes.last)
        #expect(try cluster.connect(last).put("/v1/sessions/\(id)", Documents.conflict).status == 200)
        let readings = try cluster.awaitSameEverywhere(id, revision: revision + 1)
        #expect(readings["nginx"]?[1].contains(#""broken":[{"id":"w2""#) == true, "\(readings["nginx"] ?? [])")
        #expect(try nginx.request("DELETE", "/v1/sessions/\(id)").status == 204)
        for node in cluster.nodes {
            let status = try eventually(timeout: 10, pollEvery: 0.05, { try cluster.connect(node).get("/v1/sessions/\(id)").status },
                                        satisfies: { $0 == 404 })
            #expect(status == 404, "\(node.name) after DELETE")
        }
    }

    @Test("POST /v1/sessions works through nginx and every node: new ids, read the same everywhere, spread over the nodes")
    func postThroughAnyNode() throws {
        let cluster = try Cluster.current()
        var ids: [String] = []
        var servedBy: Set<String> = []
        let nginx = try cluster.nginx()
        for _ in 0..<12 {
            let r = try nginx.post("/v1/sessions", Documents.card)
            #expect(r.status == 201, "through nginx: \(r.text.prefix(200))")
            ids.append(try #require(try r.json()["id"]?.stringValue))
            if let node = cluster.node(answering: r) { servedBy.insert(node.name) }
        }
        // No session in the path: nginx hashes each request on its own id, so they spread.
        #expect(servedBy.count >= 2, "POSTs through nginx all went to \(servedBy)")
        for node in cluster.nodes {
            let c = try cluster.connect(node)
            for _ in 0..<2 {
                let r = try c.post("/v1/sessions", Documents.chain(5))
                #expect(r.status == 201, "through \(node.name): \(r.text.prefix(200))")
                ids.append(try #require(try r.json()["id"]?.stringValue))
            }
        }
        #expect(Set(ids).count == ids.count, "every id is new")
        for id in ids {
            try cluster.awaitSameEverywhere(id, revision: 1)
            #expect(try nginx.request("DELETE", "/v1/sessions/\(id)").status == 204)
        }
    }

    @Test("two nodes PATCHing one session at once never acknowledge two changes as one revision; the document is their replay")
    func concurrentPatchesOnTwoNodes() throws {
        let cluster = try Cluster.current()
        let id = Cluster.newID("race")
        let (a, b) = (cluster.nodes[0], cluster.nodes[1])
        #expect(try cluster.connect(a).put("/v1/sessions/\(id)", Documents.card).status == 201)
        // Both nodes hold the session before the race.
        _ = try cluster.awaitSameEverywhere(id, revision: 1)
        let base = try Cluster.document(try cluster.nginx(), id).document

        let ledger = ClusterLedger()
        let group = DispatchGroup()
        let rounds = 60
        for (index, node) in [a, b].enumerated() {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                guard let c = try? RawHTTPConnection(port: node.port, timeoutSeconds: 10) else { return }
                for i in 0..<rounds {
                    // Different members on each node, and values that never repeat: every PATCH
                    // acknowledged makes a revision, and the replay tells each one's place.
                    let patch = index == 0 ? #"{"constraints":{"card-height":{"constant":\#(1000 + i)}}}"#
                        : i % 4 == 3 ? #"{"constraints":{"extra-\#(i)":"card.width >= \#(i)"}}"#
                        : #"{"views":{"title":{"intrinsicSize":{"width":\#(2000 + i),"height":21}}}}"#
                    ledger.record(patch, try? c.patch("/v1/sessions/\(id)", patch))
                }
            }
        }
        #expect(group.wait(timeout: .now() + 120) == .success)
        let entries = ledger.all
        let acknowledged = entries.compactMap { e in e.revision.map { ($0, e.patch) } }.sorted { $0.0 < $1.0 }
        let statuses = Dictionary(grouping: entries, by: \.status).mapValues(\.count)
        // A node that lost the race reloads and applies its change after the winner's; an answer
        // that is not 200 must at least not be a failure of the server.
        #expect(entries.allSatisfy { [200, 409, 412].contains($0.status) }, "statuses: \(statuses)")
        #expect(Set(acknowledged.map(\.0)).count == acknowledged.count, "a revision acknowledged twice: \(acknowledged.map(\.0))")
        // Every node answers the stored state once the store has told the losers (bounded time).
        try cluster.awaitSameEverywhere(id)
        let (document, revision) = try Cluster.document(try cluster.connect(cluster.nodes.last!), id)
        #expect(acknowledged.map(\.0) == Array(2..<(revision + 1)), "acknowledged revisions against the stored \(revision)")
        #expect(document == (try DocumentParser.replay(base, patches: acknowledged.map { Array($0.1.utf8) })),
                "the stored document is not the replay of the \(acknowledged.count) acknowledged PATCHes")
        #expect(Set(entries.filter { $0.status == 200 }.map { $0.patch.contains("card-height") }).count == 2,
                "both nodes had changes acknowledged: \(statuses)")
    }

    @Test("conditional PATCHes with the same If-Match through two nodes: exactly one wins, the other gets 412")
    func conditionalPatchesOnTwoNodes() throws {
        let cluster = try Cluster.current()
        let id = Cluster.newID("ifmatch")
        let (a, b) = (cluster.nodes[0], cluster.nodes[1])
        #expect(try cluster.connect(a).put("/v1/sessions/\(id)", Documents.card).status == 201)
        try cluster.awaitSameEverywhere(id, revision: 1)
        for round in 0..<20 {
            let tag = try #require(try cluster.nginx().get("/v1/sessions/\(id)").header("ETag"))
            let results = ClusterLedger()
            let group = DispatchGroup()
            for (index, node) in [a, b].enumerated() {
                group.enter()
                Thread.detachNewThread {
                    defer { group.leave() }
                    let patch = #"{"constraints":{"card-height":{"constant":\#(10_000 + 2 * round + index)}}}"#
                    let c = try? RawHTTPConnection(port: node.port, timeoutSeconds: 10)
                    results.record(patch, try? c?.patch("/v1/sessions/\(id)", patch, headers: [("If-Match", tag)]))
                }
            }
            #expect(group.wait(timeout: .now() + 30) == .success)
            let statuses = results.all.map(\.status).sorted()
            #expect(statuses == [200, 412], "round \(round) from \(tag): \(statuses)")
            // The winner's revision, everywhere, before the next round reads its tag.
            try cluster.awaitSameEverywhere(id, revision: round + 2)
        }
    }
}
