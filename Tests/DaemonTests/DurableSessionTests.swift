import Foundation
import JSON
import LayoutModel
import Testing
import TestSupport

/// Sessions in a SQLite store on the real daemon (issue 21): a restart answers byte for byte what
/// the daemon answered before; a store that fails answers 503 and keeps the session as stored; a
/// truncated store stops the start.
@Suite("durable sessions")
struct DurableSessionTests {
    /// `--store sqlite:<dir>/s.db`, with `extra` flags.
    static func daemon(_ dir: TemporaryDirectory, _ extra: [String] = []) throws -> Daemon {
        try Daemon(["--store", "sqlite:\(dir.url.path)/s.db", "--log-level", "warning"] + extra)
    }

    /// Everything a client can read of a session: both GETs' bodies (relative and absolute) and tags.
    static func reading(_ c: RawHTTPConnection, _ id: String) throws -> [String] {
        var out: [String] = []
        for target in ["/v1/sessions/\(id)", "/v1/sessions/\(id)/frames", "/v1/sessions/\(id)?coordinates=absolute"] {
            // One request id throughout: a deleted session's 404 body names it.
            let r = try c.get(target, headers: [("X-Request-Id", "reading")])
            out.append("\(r.status) \(r.header("ETag") ?? "-") \(r.text)")
        }
        return out
    }

    static let delegated = #"""
        {"views": {"root": {"frame": {"width": 400, "height": 300}}, "a": {"parent": "root", "frame": {"x": 0, "y": 0, "height": 10}}},
         "constraints": {"a-fallback": {"first": "a.width", "constant": 10, "priority": 250},
                         "a-del": {"first": "a.width", "constant": 100, "activation": "delegate"}},
         "delegate": {"a-del": true}}
        """#

    @Test("a restart answers every session byte for byte: documents, frames, diagnostics, ETags; deleted stay deleted")
    func restartRestoresEverySession() throws {
        let dir = try TemporaryDirectory()
        var before: [String: [String]] = [:]
        var deletedTag: String?
        do {
            let daemon = try Self.daemon(dir)
            let c = try daemon.connect()
            #expect(try c.put("/v1/sessions/card", Documents.card).status == 201)
            // The fast lane (one constant), a member edit, a patch through the whole document, and
            // enough PATCHes for the store to take snapshots between them.
            for i in 0..<130 {
                #expect(try c.patch("/v1/sessions/card", #"{"constraints":{"card-height":{"constant":\#(100 + i)}}}"#).status == 200)
            }
            #expect(try c.patch("/v1/sessions/card", #"{"views":{"title":{"intrinsicSize":{"width":90,"height":30}}}}"#).status == 200)
            // (Every view stays determined: a view listed in `diagnostics.ambiguous` has no position
            // of its own, and a fresh solve after a restart may place it elsewhere.)
            #expect(try c.patch("/v1/sessions/card", #"""
                {"views":{"badge":{"parent":"card","intrinsicSize":{"width":20,"height":20}}},
                 "constraints":{"card-top":null,"card-bottom":"card.bottom == root.bottom - 40",
                                "badge-pos":"badge.cornerTL == card.cornerTL + (4, 4)"}}
                """#).status == 200)
            // PUT of another document; a broken constraint (diagnostics); delegate memory that
            // outlives its `delegate` entry.
            #expect(try c.put("/v1/sessions/conflict", Documents.card).status == 201)
            #expect(try c.put("/v1/sessions/conflict", Documents.conflict).status == 200)
            #expect(try c.put("/v1/sessions/delegated", Self.delegated).status == 201)
            #expect(try c.patch("/v1/sessions/delegated", #"{"delegate":null}"#).status == 200)
            let posted = try c.post("/v1/sessions", Documents.chain(30))
            #expect(posted.status == 201)
            let postedID = try #require(try posted.json()["id"]?.stringValue)
            #expect(try c.put("/v1/sessions/gone", Documents.card).status == 201)
            deletedTag = try c.get("/v1/sessions/gone").header("ETag")
            #expect(try c.request("DELETE", "/v1/sessions/gone").status == 204)
            for id in ["card", "conflict", "delegated", postedID, "gone"] { before[id] = try Self.reading(c, id) }
            daemon.signal(SIGKILL)
            _ = daemon.waitForExit(timeout: 10)
        }
        let daemon = try Self.daemon(dir)
        let c = try daemon.connect()
        for (id, expected) in before {
            #expect(try Self.reading(c, id) == expected, "\(id)")
        }
        #expect(before["delegated"]?[2].contains(#""a":{"x":0,"y":0,"width":100"#) == true, "delegate memory")
        // The id deleted before the restart, created again: a tag no client held.
        let again = try c.put("/v1/sessions/gone", Documents.card)
        #expect(again.status == 201 && again.header("ETag").etagRevision == 1 && again.header("ETag") != deletedTag)
        #expect(try c.get("/healthz").json()["sessions"]?.numberValue == 5)
    }

    @Test("the store refuses writes (file moved away): 503 with Retry-After, the session unchanged, reads work, writes work again")
    func storeFailureAnswers503() throws {
        let dir = try TemporaryDirectory()
        let daemon = try Self.daemon(dir)
        let c = try daemon.connect()
        #expect(try c.put("/v1/sessions/s", Documents.card).status == 201)
        #expect(try c.patch("/v1/sessions/s", #"{"constraints":{"card-height":{"constant":150}}}"#).status == 200)
        let before = try Self.reading(c, "s")
        let file = dir.url.path + "/s.db"
        // The store checks that its path still names the file it opened (as it would after the
        // file was removed or replaced); moving it back makes the same file reachable again.
        #expect(rename(file, file + ".away") == 0)
        let refused: [(String, RawHTTPResponse)] = [
            ("PATCH lane", try c.patch("/v1/sessions/s", #"{"constraints":{"card-height":{"constant":170}}}"#)),
            ("PATCH document", try c.patch("/v1/sessions/s", #"{"constraints":{"card-top":null}}"#)),
            ("PUT replace", try c.put("/v1/sessions/s", Documents.conflict)),
            ("PUT create", try c.put("/v1/sessions/t", Documents.card)),
            ("POST", try c.post("/v1/sessions", Documents.card)),
            ("DELETE", try c.request("DELETE", "/v1/sessions/s")),
        ]
        for (name, r) in refused {
            #expect(r.status == 503 && r.header("Retry-After") != nil, "\(name): \(r.status)")
            #expect(r.problemType == "/problems/store-unavailable", "\(name)")
        }
        #expect(try Self.reading(c, "s") == before)
        #expect(try c.get("/v1/sessions/t").status == 404)
        #expect(rename(file + ".away", file) == 0)
        let next = try c.patch("/v1/sessions/s", #"{"constraints":{"card-height":{"constant":170}}}"#)
        #expect(next.status == 200 && next.header("ETag").etagRevision == 3)
        let after = try Self.reading(c, "s")
        daemon.signal(SIGKILL)
        _ = daemon.waitForExit(timeout: 10)
        let restarted = try Self.daemon(dir)
        #expect(try Self.reading(try restarted.connect(), "s") == after)
    }

    @Test("a truncated store file stops the start: exit status 1, the file and the problem named")
    func truncatedStoreStopsTheStart() throws {
        let dir = try TemporaryDirectory()
        do {
            let daemon = try Self.daemon(dir)
            let c = try daemon.connect()
            for i in 0..<20 { #expect(try c.put("/v1/sessions/s\(i)", Documents.chain(40)).status == 201) }
            daemon.signal(SIGTERM)
            #expect(daemon.waitForExit(timeout: 10) == 0)
        }
        let file = dir.url.path + "/s.db"
        let size = try #require(try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int)
        #expect(truncate(file, off_t(size / 2)) == 0)
        let run = try LayoutdBinary.run(["serve", "--port", "0", "--store", "sqlite:\(file)"], timeout: 10)
        #expect(run.status == 1)
        #expect(run.stderr.contains(file) && run.stderr.contains("corrupt"), "\(run.stderr)")
    }
}
