import JSON
@testable import LayoutModel

/// Views for the visual format tests: `root` with children a, b, c, red, `top-bar`, a guide `g`;
/// `label` inside red; p1, p2 inside `panel` (a second root); `other` a lone root.
func vflContext(priorityField: Double? = nil, maxMagnitude: Double = 1e7) -> CompileContext {
    let list = [
        View(id: "root"), View(id: "a", parent: "root"), View(id: "b", parent: "root"),
        View(id: "c", parent: "root"), View(id: "red", parent: "root"), View(id: "top-bar", parent: "root"),
        View(id: "g", parent: "root", kind: .guide), View(id: "label", parent: "red"),
        View(id: "panel"), View(id: "p1", parent: "panel"), View(id: "p2", parent: "panel"), View(id: "other"),
    ]
    return CompileContext(views: ViewLookup(list), dialect: .standard, priorityField: priorityField, maxMagnitude: maxMagnitude)
}

func vflNumber(_ v: Double) -> String {
    v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : String(v)
}

/// `first REL rhs [@priority]`, e.g. `b.leading == a.trailing + 8`, `a.width >= 50 @750`,
/// `b.width == 0.5*root.width`; the priority is shown only when it is not 1000.
func vflDescribe(_ c: LinearConstraint) -> String {
    guard let first = c.terms.first, first.coefficient == 1 else { return "unexpected shape \(c)" }
    var rhs: [String] = []
    for t in c.terms.dropFirst() {
        let m = -t.coefficient
        rhs.append(m == 1 ? "\(t.anchor)" : "\(vflNumber(m))*\(t.anchor)")
    }
    var text = rhs.joined(separator: " + ")
    let k = -c.constant
    if rhs.isEmpty {
        text = vflNumber(k)
    } else if k != 0 {
        text += k > 0 ? " + \(vflNumber(k))" : " - \(vflNumber(-k))"
    }
    let priority = c.priority == 1000 ? "" : " @\(vflNumber(c.priority))"
    return "\(first.anchor) \(c.relation.rawValue) \(text)\(priority)"
}

func vflMetrics(_ pairs: [(String, JSONValue)]) -> JSONObject { JSONObject(pairs) }

/// Compiles Apple's format; descriptions of the items, or `["problems: …"]`.
func vfl(_ format: String, metrics: JSONObject? = nil, options: [String]? = nil,
         context: CompileContext = vflContext()) -> [String] {
    switch VisualFormatCompiler.compile(format: format, metrics: metrics, options: options?.map { .string($0) },
                                        context: context) {
    case .success(let items): return items.map(vflDescribe)
    case .failure(let problems): return ["problems: \(problems)"]
    }
}

func vflItems(_ format: String, metrics: JSONObject? = nil, options: [JSONValue]? = nil,
              context: CompileContext = vflContext()) -> [LinearConstraint] {
    (try? VisualFormatCompiler.compile(format: format, metrics: metrics, options: options, context: context).get()) ?? []
}

func vflProblems(_ format: String, metrics: JSONObject? = nil, options: [JSONValue]? = nil,
                 context: CompileContext = vflContext()) -> [EntryProblem] {
    if case .failure(let p) = VisualFormatCompiler.compile(format: format, metrics: metrics, options: options,
                                                           context: context) { return p }
    return []
}

/// Compiles the Visually form; descriptions of the items, or `["problems: …"]`.
func visually(_ format: String, context: CompileContext = vflContext()) -> [String] {
    switch VisuallyCompiler.compile(format: format, context: context) {
    case .success(let items): return items.map(vflDescribe)
    case .failure(let problems): return ["problems: \(problems)"]
    }
}

func visuallyProblems(_ format: String, context: CompileContext = vflContext()) -> [EntryProblem] {
    if case .failure(let p) = VisuallyCompiler.compile(format: format, context: context) { return p }
    return []
}
