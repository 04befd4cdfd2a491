import TestSupport
import Testing
import JSON
import LayoutAPI

/// Every conformance case (Tests/Fixtures/conformance), judged as shared/conformance/README.md
/// says, through the stateless route and through a session.
@Suite("Conformance cases through the API")
struct ConformanceAPITests {
    @Test("each case through POST /v1/solve answers 200 with the expected frames and diagnostics",
          arguments: T.conformanceCases())
    func solve(_ name: String) throws {
        let c = try T.conformance(name)
        let document = try #require(c["document"])
        let r = Client().send("POST", "/v1/solve", body: T.text(document))
        #expect(r.status == 200, "\(name): \(r.text.prefix(300))")
        let issues = ConformanceJudge.problems(T.json(r), try #require(c["expect"]))
        #expect(issues.isEmpty, "\(name): \(issues)")
    }

    @Test("each case through PUT then GET frames gives the same answer", arguments: T.conformanceCases())
    func session(_ name: String) throws {
        let c = try T.conformance(name)
        let document = try #require(c["document"])
        let client = Client()
        let id = String(name.dropLast(".json".count))
        let put = client.put(id, T.text(document))
        #expect(put.status == 201, "\(name): \(put.text.prefix(300))")
        #expect(put.header("ETag").etagRevision == 1)
        let expect = try #require(c["expect"])
        #expect(ConformanceJudge.problems(T.json(put), expect).isEmpty, "\(name) (PUT answer): \(ConformanceJudge.problems(T.json(put), expect))")
        let frames = client.send("GET", "/v1/sessions/\(id)/frames")
        #expect(frames.status == 200)
        #expect(T.json(frames)["revision"]?.numberValue == 1)
        let issues = ConformanceJudge.problems(T.json(frames), expect)
        #expect(issues.isEmpty, "\(name): \(issues)")
        // The canonical document solves to the same answer as the document as written.
        let doc = try #require(T.json(client.send("GET", "/v1/sessions/\(id)"))["document"])
        let again = client.send("POST", "/v1/solve", body: T.text(doc))
        #expect(ConformanceJudge.problems(T.json(again), expect).isEmpty, "\(name) (canonical document)")
    }
}
