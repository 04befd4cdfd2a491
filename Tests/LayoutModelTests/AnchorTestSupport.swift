import JSON
import Testing
@testable import LayoutModel

/// Shared helpers of the anchor / object-form / expression / dialect / rules suites.
enum ExprFixture {
    /// root ⊃ {a, b, c, d, e, red ⊃ label, guide (a layout guide), my-view, 2col, 10};
    /// other ⊃ o1 is a second root; x ↔ y is a parent cycle.
    static let views: ViewLookup = {
        var list: [View] = [View(id: "root"), View(id: "other"), View(id: "o1", parent: "other")]
        for id in ["a", "b", "c", "d", "e", "red", "my-view", "2col", "10"] {
            list.append(View(id: id, parent: "root"))
        }
        list.append(View(id: "label", parent: "red"))
        list.append(View(id: "guide", parent: "root", kind: .guide))
        list.append(View(id: "x", parent: "y"))
        list.append(View(id: "y", parent: "x"))
        return ViewLookup(list)
    }()

    static func context(_ dialect: Dialect = .standard, priorityField: Double? = nil,
                        maxMagnitude: Double = 1e7) -> CompileContext {
        CompileContext(views: views, dialect: dialect, priorityField: priorityField, maxMagnitude: maxMagnitude)
    }

    /// An item as text: `b.top - a.bottom - 0.25*root.height + 25 == 0`.
    static func render(_ item: LinearConstraint) -> String {
        var s = ""
        for t in item.terms {
            let c = t.coefficient
            let sign = c < 0 ? "-" : "+"
            let mag = abs(c) == 1 ? "" : number(abs(c)) + "*"
            s += s.isEmpty ? (c < 0 ? "-" : "") + mag + t.anchor.description : " \(sign) \(mag)\(t.anchor)"
        }
        if s.isEmpty { s = "0" }
        if item.constant != 0 { s += item.constant < 0 ? " - \(number(-item.constant))" : " + \(number(item.constant))" }
        return "\(s) \(item.relation.rawValue) 0"
    }

    static func number(_ x: Double) -> String {
        let r = (x * 1e9).rounded() / 1e9
        if r == r.rounded(), abs(r) < 1e15 { return String(Int64(r)) }
        return String(r)
    }

    static func expr(_ text: String, _ dialect: Dialect = .standard, priorityField: Double? = nil)
        -> Result<[LinearConstraint], [EntryProblem]> {
        ExpressionCompiler.compile(text, context: context(dialect, priorityField: priorityField))
    }

    /// The rendered items of an expression that must compile.
    static func rendered(_ text: String, _ dialect: Dialect = .standard,
                         sourceLocation: SourceLocation = #_sourceLocation) -> [String] {
        switch expr(text, dialect) {
        case .success(let items): return items.map(render)
        case .failure(let p):
            Issue.record("'\(text)' did not compile: \(p)", sourceLocation: sourceLocation)
            return []
        }
    }

    /// The problems of a compile that must fail (empty, with an issue recorded, when it succeeded).
    static func problems(_ r: Result<[LinearConstraint], [EntryProblem]>,
                         sourceLocation: SourceLocation = #_sourceLocation) -> [EntryProblem] {
        switch r {
        case .success(let items):
            Issue.record("expected problems, got \(items.map(render))", sourceLocation: sourceLocation)
            return []
        case .failure(let p): return p
        }
    }

    static func items(_ r: Result<[LinearConstraint], [EntryProblem]>,
                      sourceLocation: SourceLocation = #_sourceLocation) -> [LinearConstraint] {
        switch r {
        case .success(let items): return items
        case .failure(let p):
            Issue.record("unexpected problems: \(p)", sourceLocation: sourceLocation)
            return []
        }
    }

    /// A JSON object from ordered pairs.
    static func object(_ pairs: KeyValuePairs<String, JSONValue>) -> JSONObject {
        JSONObject(pairs.map { ($0.key, $0.value) })
    }

    /// A JSON array of numbers.
    static func numbers(_ values: [Double]) -> JSONValue { .array(values.map { .number($0) }) }

    /// An object-form entry: first, relation, second, constant, multiplier (nil = absent).
    static func entry(_ first: String, _ relation: String? = nil, _ second: String? = nil,
                      constant: JSONValue? = nil, multiplier: JSONValue? = nil) -> JSONObject {
        var o = JSONObject()
        o["first"] = .string(first)
        o["relation"] = relation.map { .string($0) }
        o["second"] = second.map { .string($0) }
        o["multiplier"] = multiplier
        o["constant"] = constant
        return o
    }

    static func object(_ entry: JSONObject, _ dialect: Dialect = .standard, priorityField: Double? = nil)
        -> Result<[LinearConstraint], [EntryProblem]> {
        ObjectFormCompiler.compile(entry, context: context(dialect, priorityField: priorityField))
    }

    static func renderedObject(_ entry: JSONObject, _ dialect: Dialect = .standard,
                               sourceLocation: SourceLocation = #_sourceLocation) -> [String] {
        items(object(entry, dialect), sourceLocation: sourceLocation).map(render)
    }
}
