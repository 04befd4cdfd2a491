// fuzz-document: the document parser and validator (Sources/LayoutModel) and the engine (LayoutEngine).
//
// The first byte picks how the rest of the input is used:
// - raw: the rest is the JSON text of a whole document (every surface form, as JSON);
// - spliced: the rest is the text of one field of a small valid document, so the grammars are fuzzed directly:
//   an expression (in each dialect), an Apple visual format, a Visually format (after `H(` or `V(`), a `when`
//   predicate, an object-form anchor, a helper's attribute, a priority.
// For every input:
// - validation never crashes; a refused document has at least one problem, and each problem has a code and an
//   RFC 6901 pointer that resolves in the input (or, for a missing field, whose parent is an object there);
// - an accepted document solves without a crash, gives one finite frame per view, and solving it again gives
//   the same frames and diagnostics (section 7.3 of docs/document.md: results are deterministic).
import FuzzSupport
import JSON
import LayoutEngine
import LayoutModel

runFuzzer { bytes in
    guard let mode = bytes.first else { return }
    let rest = UnsafeRawBufferPointer(rebasing: bytes.dropFirst())
    let document: JSONValue
    switch mode % 10 {
    case 0, 1, 2:
        guard let json = try? JSONParser.parse(rest, maxDepth: 64) else { return }
        document = json
    default:
        document = Splice.document(mode: mode, text: String(decoding: rest, as: UTF8.self))
    }
    check(document)
}

func check(_ json: JSONValue) {
    switch DocumentParser.parse(json) {
    case .failure(let error):
        fuzzCheck(!error.problems.isEmpty, "a refused document without problems")
        for problem in error.problems {
            fuzzCheck(!problem.code.isEmpty && !problem.detail.isEmpty, "a problem without code or detail: \(problem)")
            fuzzCheck(pointerFits(problem.pointer, json),
                      "problem pointer \(problem.pointer) is not in the document: \(problem) in \(JSONWriter.string(json))")
        }
    case .success(let document):
        let system = LayoutSystem(document: document)
        let frames = system.frames()
        let absolute = system.frames(.absolute)
        let diagnostics = system.diagnostics
        fuzzCheck(frames.count == document.views.count && absolute.count == frames.count, "not one frame per view")
        for (id, frame) in frames + absolute {
            fuzzCheck(frame.x.isFinite && frame.y.isFinite && frame.width.isFinite && frame.height.isFinite,
                      "frame of \(id) is not finite: \(frame) in \(JSONWriter.string(json))")
        }
        let again = LayoutSystem(document: document)
        fuzzCheck(again.frames().elementsEqual(frames, by: { $0.id == $1.id && $0.frame == $1.frame })
                    && again.diagnostics == diagnostics,
                  "solving the same document twice differs: \(JSONWriter.string(json))")
    }
}

/// The pointer resolves in `json`, or it names a missing member of an object that is there.
func pointerFits(_ pointer: String, _ json: JSONValue) -> Bool {
    if json.value(atPointer: pointer) != nil { return true }
    guard let slash = pointer.utf8.lastIndex(of: UInt8(ascii: "/")) else { return false }
    let parent = String(pointer[..<slash])
    if case .object = json.value(atPointer: parent) { return true }
    return false
}

/// A small valid document with one field replaced by the fuzzer's text.
enum Splice {
    static let dialects = ["standard", "mag", "mortar", "cartography"]

    static func document(mode: UInt8, text: String) -> JSONValue {
        let entry: JSONValue
        var dialect = "standard"
        switch mode % 10 {
        case 3:
            entry = .string(text)
            dialect = dialects[Int(mode / 10) % dialects.count]
        case 4:
            entry = object([("expr", .string(text)), ("priority", .number(750))])
            dialect = dialects[Int(mode / 10) % dialects.count]
        case 5:
            entry = object([
                ("format", .string(text)),
                ("metrics", object([("pad", .number(16)), ("gap", .number(4)), ("a", .number(12))])),
                ("options", .array(mode & 0x10 == 0 ? [] : [.string("alignAllTop")])),
            ])
        case 6:
            entry = object([("format", .string((mode & 0x10 == 0 ? "H(" : "V(") + text))])
        case 7:
            entry = object([("expr", .string("a.width == 10")), ("activation", object([("when", .string(text))]))])
        case 8:
            entry = object([("first", .string(text)), ("relation", .string(">=")), ("second", .string("b.edges")),
                            ("constant", .number(4))])
        default:
            entry = mode & 0x10 == 0
                ? object([("align", .string(text)), ("views", .array([.string("a"), .string("b"), .string("c")]))])
                : object([("expr", .string("b.height == 20")), ("priority", .string(text))])
        }
        let views = object([
            ("root", object([("frame", object([("width", .number(320)), ("height", .number(480))]))])),
            ("a", object([("parent", .string("root")), ("intrinsicSize", size(50, 30))])),
            ("b", object([("parent", .string("root")), ("intrinsicSize", size(60, 40))])),
            ("c", object([("parent", .string("a")), ("hidden", .bool(mode & 0x20 != 0))])),
            ("label", object([("parent", .string("b")), ("intrinsicSize", size(80, 21)),
                              ("baseline", object([("first", .number(16)), ("last", .number(5))]))])),
            ("g", object([("parent", .string("root")), ("kind", .string("guide"))])),
            ("my-view", object([("parent", .string("root"))])),
            ("2col", object([("parent", .string("root"))])),
        ])
        return object([
            ("dialect", .string(dialect)),
            ("views", views),
            ("constraints", object([("base", .string("a.top == root.top + 8")), ("fuzz", entry)])),
            ("flags", object([("f", .bool(true)), ("dark mode", .bool(false))])),
        ])
    }

    static func object(_ pairs: [(String, JSONValue)]) -> JSONValue { .object(JSONObject(pairs)) }
    static func size(_ w: Double, _ h: Double) -> JSONValue { object([("width", .number(w)), ("height", .number(h))]) }
}
