import TestSupport
import Foundation
import JSON
import Testing

/// Every conformance case (Tests/Fixtures/conformance), judged as shared/conformance/README.md
/// says, against the real daemon: through `POST /v1/solve`, through a session, and through
/// `layoutd solve`, which must print exactly what `POST /v1/solve` answers.
///
/// One daemon per test walks through every case (rather than one test per case) so that the
/// suite starts a handful of daemons, not dozens; each failure names its case.
@Suite("Conformance over HTTP and the CLI")
struct ConformanceOverHTTPTests {
    private func cases() throws -> [(name: String, document: JSONValue, expect: JSONValue)] {
        let names = Fixtures.conformanceCases()
        #expect(names.count >= 20, "conformance cases not found in \(Fixtures.conformanceDirectory.path)")
        return try names.map { name in
            let c = try Fixtures.conformance(name)
            guard let document = c["document"], let expect = c["expect"] else {
                throw TestFailure("\(name): no document or expect")
            }
            return (name, document, expect)
        }
    }

    @Test("every case through POST /v1/solve answers 200 with the expected frames and diagnostics")
    func solveRoute() throws {
        let daemon = try Daemon()
        let c = try daemon.connect()
        for (name, document, expect) in try cases() {
            let response = try c.post("/v1/solve", document.text)
            #expect(response.status == 200, "\(name): \(response.text.prefix(300))")
            let issues = ConformanceJudge.problems(try response.json(), expect)
            #expect(issues.isEmpty, "\(name): \(issues)")
        }
    }

    @Test("every case through a session: PUT, then GET frames, give the expected answer")
    func sessionRoute() throws {
        let daemon = try Daemon()
        let c = try daemon.connect()
        for (name, document, expect) in try cases() {
            let id = String(name.dropLast(".json".count))
            let put = try c.put("/v1/sessions/\(id)", document.text)
            #expect(put.status == 201, "\(name): \(put.text.prefix(300))")
            #expect(put.header("ETag").etagRevision == 1)
            let putIssues = ConformanceJudge.problems(try put.json(), expect)
            #expect(putIssues.isEmpty, "\(name) (PUT answer): \(putIssues)")
            let frames = try c.get("/v1/sessions/\(id)/frames")
            #expect(frames.status == 200, "\(name)")
            #expect(try frames.json()["revision"]?.numberValue == 1)
            let issues = ConformanceJudge.problems(try frames.json(), expect)
            #expect(issues.isEmpty, "\(name) (GET frames): \(issues)")
            // The canonical document the session keeps solves to the same answer.
            let canonical = try #require(try c.get("/v1/sessions/\(id)").json()["document"])
            let again = ConformanceJudge.problems(try c.post("/v1/solve", canonical.text).json(), expect)
            #expect(again.isEmpty, "\(name) (canonical document): \(again)")
        }
    }

    @Test("layoutd solve prints exactly what POST /v1/solve answers for every case, exit 0")
    func solveCommand() throws {
        let daemon = try Daemon()
        let c = try daemon.connect()
        let directory = try TemporaryDirectory()
        for (name, document, expect) in try cases() {
            let file = try directory.write(name, Array(document.text.utf8))
            let http = try c.post("/v1/solve", document.text)
            let cli = try LayoutdBinary.run(["solve", file])
            #expect(cli.status == 0, "\(name): exit \(cli.status), stderr: \(cli.stderr)")
            #expect(cli.stdout == http.text + "\n", "\(name): CLI and HTTP disagree")
            #expect(cli.stderr.isEmpty, "\(name): \(cli.stderr)")
            #expect(ConformanceJudge.problems(try JSONParser.parse(cli.stdout), expect).isEmpty, "\(name)")

            // From standard input, in root coordinates.
            let absolute = try c.post("/v1/solve?coordinates=absolute", document.text)
            let piped = try LayoutdBinary.run(["solve", "--coordinates", "absolute", "-"], input: Array(document.text.utf8))
            #expect(piped.status == 0, "\(name): \(piped.stderr)")
            #expect(piped.stdout == absolute.text + "\n", "\(name): CLI and HTTP disagree in absolute coordinates")

            // Both solve once (LayoutSystem.solveOnce); a session keeps its system: the same answer.
            let session = try c.put("/v1/sessions/cli-\(name.dropLast(".json".count))", document.text)
            #expect(session.status == 201, "\(name): \(session.text.prefix(300))")
            let once = try JSONParser.parse(cli.stdout), kept = try session.json()
            #expect(once["frames"] == kept["frames"], "\(name): a one-shot solve and a session's frames differ")
            #expect(once["diagnostics"] == kept["diagnostics"], "\(name): a one-shot solve and a session's diagnostics differ")
        }
    }

    @Test("layoutd solve writes an answer larger than a pipe holds completely, as POST /v1/solve answers it")
    func largeAnswer() throws {
        // 3,000 views placed by their frames: a 150 kB answer, more than a 64 kB pipe takes at once.
        var views = [#""root": {"frame": {"width": 1000, "height": 1000}}"#]
        for i in 0..<2999 {
            views.append(#""v\#(i)": {"parent": "root", "frame": {"x": \#(i % 97), "y": \#(i % 89), "width": \#(10 + i % 7), "height": 20}}"#)
        }
        let document = #"{"views": {\#(views.joined(separator: ", "))}}"#
        let daemon = try Daemon()
        let http = try daemon.connect().post("/v1/solve", document)
        #expect(http.status == 200)
        #expect(http.text.utf8.count > 100_000)
        let cli = try LayoutdBinary.run(["solve", "-"], input: Array(document.utf8))
        #expect(cli.status == 0, "stderr: \(cli.stderr)")
        #expect(cli.stdout == http.text + "\n")
    }
}

/// `layoutd solve`'s failures, options and help.
@Suite("layoutd solve")
struct SolveCommandTests {
    @Test("an invalid document: the 422 problem+json on stdout, exactly as the API's, a summary on stderr, exit 1")
    func invalidDocument() throws {
        let document = """
            {"views": {"root": {"frame": {"width": 100, "height": 100}}, "a": {"parent": "root"}},
             "constraints": {"c1": "a.left == bleu.left", "c2": {"first": "a.width", "relation": "=~"}}}
            """
        let daemon = try Daemon()
        // `layoutd solve` sends X-Request-Id: layoutd-solve (its problem bodies do not vary from run to run).
        let http = try daemon.connect().post("/v1/solve", document, headers: [("X-Request-Id", "layoutd-solve")])
        #expect(http.status == 422)
        let cli = try LayoutdBinary.run(["solve", "-"], input: Array(document.utf8))
        #expect(cli.status == 1)
        #expect(cli.stdout == http.text + "\n")
        let problem = try JSONParser.parse(cli.stdout)
        #expect(problem["type"]?.stringValue == "/problems/invalid-document")
        #expect(problem["status"]?.numberValue == 422)
        #expect(cli.stderr.contains("Invalid layout document (422)"))
        #expect(cli.stderr.contains("/constraints/c1"))
        #expect(cli.stderr.contains("bleu"))
    }

    @Test("text that is not JSON: the 400 problem+json with line and column, exit 1")
    func notJSON() throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write("broken.json", Array("{\"views\": {\n  \"root\": {,}}}".utf8))
        let cli = try LayoutdBinary.run(["solve", file])
        #expect(cli.status == 1)
        let problem = try JSONParser.parse(cli.stdout)
        #expect(problem["type"]?.stringValue == "/problems/invalid-json")
        #expect(problem["line"]?.numberValue == 2)
        #expect(cli.stdout.hasSuffix("}\n"))
        #expect(cli.stderr.contains("broken.json"))
        #expect(cli.stderr.contains("(400)"))
    }

    @Test("--strict: a broken required constraint prints the 409 body and exits 1; without it, exit 0")
    func strict() throws {
        let daemon = try Daemon()
        let c = try daemon.connect()
        let input = Array(Documents.conflict.utf8)
        let strict = try LayoutdBinary.run(["solve", "--strict", "-"], input: input)
        #expect(strict.status == 1)
        // `layoutd solve` sends X-Request-Id: layoutd-solve, so its problem body is the one HTTP answers to that id.
        let sameID = [("X-Request-Id", "layoutd-solve")]
        #expect(strict.stdout == (try c.post("/v1/solve?strict=true", Documents.conflict, headers: sameID)).text + "\n")
        #expect((try JSONParser.parse(strict.stdout))["type"]?.stringValue == "/problems/required-conflict")
        #expect(strict.stderr.contains("(409)"))

        let lenient = try LayoutdBinary.run(["solve", "-"], input: input)
        #expect(lenient.status == 0)
        #expect(lenient.stdout == (try c.post("/v1/solve", Documents.conflict)).text + "\n")
        #expect(ConformanceJudge.brokenIDs((try JSONParser.parse(lenient.stdout))["diagnostics"]) == ["w2"])

        // A valid document with --strict is an ordinary 0.
        let fine = try LayoutdBinary.run(["solve", "--strict", "-"], input: Array(Documents.card.utf8))
        #expect(fine.status == 0)
    }

    @Test("--pretty indents the same JSON")
    func pretty() throws {
        let input = Array(Documents.card.utf8)
        let compact = try LayoutdBinary.run(["solve", "-"], input: input)
        let pretty = try LayoutdBinary.run(["solve", "--pretty", "-"], input: input)
        #expect(pretty.status == 0)
        #expect(try JSONParser.parse(pretty.stdout) == JSONParser.parse(compact.stdout))
        #expect(pretty.stdout.hasPrefix("{\n  \"frames\": {\n    \"root\": {\n      \"x\": 0,"))
        #expect(pretty.stdout.hasSuffix("\n}\n"))
        #expect(compact.stdout.split(separator: "\n").count == 1)
    }

    @Test("a file that cannot be read, or a usage error: a message, exit 1 or 64")
    func unreadable() throws {
        let missing = try LayoutdBinary.run(["solve", "/nonexistent/layout.json"])
        #expect(missing.status == 1)
        #expect(missing.stdout.isEmpty)
        #expect(missing.stderr.contains("cannot read /nonexistent/layout.json"))
        #expect(missing.stderr.contains("No such file"))
        let directory = try LayoutdBinary.run(["solve", FileManager.default.temporaryDirectory.path])
        #expect(directory.status == 1)
        #expect(directory.stderr.contains("directory"))
        let noFile = try LayoutdBinary.run(["solve"])
        #expect(noFile.status == 64)
        let badCoordinates = try LayoutdBinary.run(["solve", "--coordinates", "polar", "-"])
        #expect(badCoordinates.status == 64)
    }

    @Test("--max-views is the API's limit: a larger document is the 422 too_many_views")
    func limits() throws {
        let input = Array(Documents.card.utf8)
        let limited = try LayoutdBinary.run(["solve", "--max-views", "2", "-"], input: input)
        #expect(limited.status == 1)
        #expect(limited.stdout.contains("too_many_views"))
        let tooLarge = try LayoutdBinary.run(["solve", "--max-body-bytes", "10", "-"], input: input)
        #expect(tooLarge.status == 1)
        #expect((try JSONParser.parse(tooLarge.stdout))["status"]?.numberValue == 413)
    }

    @Test("--help explains the input, the output, the options and the exit statuses")
    func help() throws {
        let help = try LayoutdBinary.run(["solve", "--help"])
        #expect(help.status == 0)
        // Help is wrapped to the terminal width: compare with every run of whitespace as one space.
        let text = help.stdout.split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ")
        for phrase in ["FILE", "standard input", "POST /v1/solve", "--coordinates", "--strict", "--pretty",
                       "problem+json", "Exit status", "(default: 1048576)"] {
            #expect(text.contains(phrase), "solve --help does not mention \(phrase)")
        }
        #expect(!text.contains("Default: 1048576. (default"), "a default is given twice")
        let root = try LayoutdBinary.run(["--help"])
        #expect(root.stdout.contains("solve"))
    }
}
