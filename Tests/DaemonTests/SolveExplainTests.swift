import Foundation
import JSON
import Testing

/// `layoutd solve --explain VIEW.ATTRIBUTE FILE|-` (issue 31): what the explain route answers.
@Suite("layoutd solve --explain")
struct SolveExplainTests {
    static let doc = """
    {"views": {"root": {"frame": {"width": 300, "height": 200}},
               "label": {"parent": "root"}, "below": {"parent": "root"}},
     "constraints": {"top": "label.top == root.top + 10", "left": "label.left == root.left + 10",
                     "h": "label.height == 36", "w": "label.width == 100",
                     "b": "below.top == label.bottom + 8", "bx": "below.left == root.left",
                     "bw": "below.width == 50", "bh": "below.height == 20"}}
    """

    @Test("prints the explain answer as JSON, from a file or standard input, and exits 0")
    func prints() throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write("doc.json", Array(Self.doc.utf8))
        let run = try LayoutdBinary.run(["solve", "--explain", "below.top", file])
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let j = try JSONParser.parse(run.stdout)
        // By hand: root.top 0, label.top 10, label.height 36: below.top = 46 + 8.
        #expect(j["view"]?.stringValue == "below" && j["attribute"]?.stringValue == "top")
        #expect(j["value"]?.numberValue == 54 && j["ambiguous"] == JSONValue.bool(false))
        #expect(j["constraints"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["b", "top", "h", "root.frame.y"])
        #expect(j["chain"]?.stringValue?.hasPrefix("below.top = label.bottom + 8 (b)") == true)
        let piped = try LayoutdBinary.run(["solve", "--explain", "below.top", "-"], input: Array(Self.doc.utf8))
        #expect(piped.status == 0 && piped.stdout == run.stdout)
    }

    @Test("a VIEW.ATTRIBUTE that is malformed, or names no view or attribute, exits non-zero saying why")
    func refusals() throws {
        let input = Array(Self.doc.utf8)
        let malformed = try LayoutdBinary.run(["solve", "--explain", "below", "-"], input: input)
        #expect(malformed.status == 64)
        #expect(malformed.stderr.contains("--explain must be VIEW.ATTRIBUTE"))
        let view = try LayoutdBinary.run(["solve", "--explain", "lable.top", "-"], input: input)
        #expect(view.status == 1)
        #expect(view.stderr.contains("no view 'lable'") && view.stderr.contains("did you mean 'label'"))
        #expect(view.stderr.contains("/view"))
        let attribute = try LayoutdBinary.run(["solve", "--explain", "label.centrX", "-"], input: input)
        #expect(attribute.status == 1)
        #expect(attribute.stderr.contains("did you mean 'centerX'") && attribute.stderr.contains("/attribute"))
        let invalid = try LayoutdBinary.run(["solve", "--explain", "label.top", "-"], input: Array(#"{"views": 3}"#.utf8))
        #expect(invalid.status == 1)
        #expect(try JSONParser.parse(invalid.stdout)["type"]?.stringValue == "/problems/invalid-document")
    }
}
