import JSON
import LayoutEngine
import LayoutModel
import Testing
@testable import LayoutAPI

/// `ConstantPatch` must give exactly the entry that reading the merged member gives, or nothing.
@Suite("Constant patches without reading the entry again")
struct ConstantPatchTests {
    /// Object-form entries of many shapes (and some that must be left to the general path).
    static let shapes = """
    {"views": {"root": {"frame": {"width": 400, "height": 300}},
               "a": {"parent": "root", "margins": {"left": 3, "right": 5, "top": 1, "bottom": 2}},
               "b": {"parent": "root", "baseline": {"first": 12, "last": 4}},
               "g": {"parent": "root", "kind": "guide"}},
     "constraints": {
       "p1": {"first": "a.leading", "second": "root.leading", "constant": 8},
       "p2": {"first": "a.trailing", "second": "root.trailing", "constant": -8, "priority": 750},
       "p3": {"first": "a.top", "second": "root.topMargin", "constant": 4.5, "relation": ">="},
       "p4": {"first": "a.width", "constant": 120, "relation": "<=", "priority": "high"},
       "p5": {"first": "a.width", "second": "root.width", "multiplier": 0.5, "constant": -10},
       "p6": {"first": "b.firstBaseline", "second": "a.lastBaseline", "constant": 6},
       "p7": {"first": "b.width", "second": "b.width", "multiplier": 2, "constant": 10},
       "p8": {"first": "b.height", "second": "a.height", "constant": 3, "activation": "bothVisible"},
       "p9": {"first": "a.centerX", "second": "root.centerXWithinMargins", "constant": 1, "group": "g1", "identifier": "x"},
       "q1": {"first": "a.bottom", "second": "root.bottom", "relation": "lessThanOrEqual", "multiplier": -0.25, "constant": -3.125},
       "q2": {"first": "b.centerY", "second": "a.centerY", "constant": 0.1, "active": true, "priority": 1},
       "z0": {"first": "a.height", "constant": 0},
       "e1": {"first": "b.edges", "second": "root.edges", "constant": 4},
       "m1": {"first": "b.leading", "second": "root.leading", "constant": 2, "dialect": "mortar"},
       "x1": {"expr": "b.top == a.bottom + 8"},
       "g1": {"first": "g.leading", "second": "root.leading", "constant": 20}}}
    """

    static func check(_ json: JSONValue, name: String) throws -> Int {
        let canonicalJSON = DocumentParser.canonicalize(json)
        guard case .success(let document) = DocumentParser.parse(canonicalJSON) else { return 0 }
        let canonical = CanonicalDocument(canonicalJSON)
        let system = LayoutSystem(document: document)
        let context = MemberContext(document: document, viewPositions: system.viewPositions)
        var taken = 0
        for (p, old) in document.constraints.enumerated() {
            let text = try #require(canonical.memberText(.constraints, at: p))
            for x in [0, 1, -1, 2.5, -7.25, 1e-9, 1e7, -1e7, 1e7 + 1, 123_456.789, -0.0] {
                let fields = JSONObject([("constant", .number(x))])
                guard let lane = ConstantPatch.entry(.object(fields), text: text, old: old, dialect: document.dialect,
                                                     limits: .default) else { continue }
                taken += 1
                let merged = try #require(MemberText.merge(text, fields))
                let reread = DocumentParser.parseConstraint(try JSONParser.parse(merged), id: old.id,
                                                            context: context, limits: .default)
                guard case .success(let expected) = reread else {
                    Issue.record("\(name) \(old.id) constant \(x): the lane took an entry the parser rejects")
                    continue
                }
                #expect(lane == expected, "\(name) \(old.id) constant \(x)")
                #expect(lane.items.map { $0.constant.bitPattern } == expected.items.map { $0.constant.bitPattern },
                        "\(name) \(old.id) constant \(x)")
            }
        }
        return taken
    }

    @Test("the entry is the one reading the merged member gives, for many object-form shapes")
    func shapes() throws {
        let taken = try Self.check(try JSONParser.parse(Self.shapes), name: "shapes")
        #expect(taken > 30)
        // Left to the general path: a composite, Mortar's dialect, an expression, a patch with
        // another field or a number out of range.
        let document = DocumentParser.canonicalize(try JSONParser.parse(Self.shapes))
        let canonical = CanonicalDocument(document)
        guard case .success(let model) = DocumentParser.parse(document) else { Issue.record("invalid"); return }
        func lane(_ id: String, _ change: JSONValue) -> ConstraintEntry? {
            let p = model.constraints.firstIndex { $0.id == id }!
            return ConstantPatch.entry(change, text: canonical.memberText(.constraints, at: p)!,
                                       old: model.constraints[p], dialect: model.dialect, limits: .default)
        }
        let five = JSONValue.object(JSONObject([("constant", .number(5))]))
        #expect(lane("p1", five) != nil)
        #expect(lane("z0", five) != nil)
        for id in ["e1", "m1", "x1"] { #expect(lane(id, five) == nil, "\(id)") }
        #expect(lane("p1", .object(JSONObject([("constant", .number(5)), ("priority", .number(10))]))) == nil)
        #expect(lane("p1", .object(JSONObject([("constant", .number(2e7))]))) == nil)
        #expect(lane("p1", .object(JSONObject([("constant", .number(.infinity))]))) == nil)
        #expect(lane("p1", .object(JSONObject([("constant", .string("5"))]))) == nil)
        #expect(lane("p1", .number(5)) == nil)
    }

    @Test("the same shapes under each document dialect", arguments: ["standard", "mag", "cartography", "mortar"])
    func dialects(_ dialect: String) throws {
        guard case .object(var top) = try JSONParser.parse(Self.shapes) else { return }
        top["dialect"] = .string(dialect)
        let taken = try Self.check(.object(top), name: dialect)
        if dialect == "mortar" { #expect(taken == 0) } else { #expect(taken > 30) }
    }

    @Test("every constraint of every conformance case", arguments: T.conformanceCases())
    func conformance(_ name: String) throws {
        _ = try Self.check(try T.conformance(name)["document"] ?? .null, name: name)
    }
}
