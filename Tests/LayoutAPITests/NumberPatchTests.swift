import JSON
import LayoutEngine
import LayoutModel
import Testing
@testable import LayoutAPI

/// `NumberPatch` must give exactly the member that reading the merged member gives, or nothing.
@Suite("Constant and size patches without reading the member again")
struct NumberPatchTests {
    /// Object-form entries of many shapes (and some that must be left to the general path).
    static let shapes = """
    {"views": {"root": {"frame": {"width": 400, "height": 300}},
               "r2": {"frame": {"x": 10, "y": -4, "width": 320.5}, "hidden": false, "alpha": 0.5},
               "r3": {"frame": {"height": 0}, "intrinsicSize": {"width": 5}},
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

    /// How many size and constant patches took the lane (each compared with a full re-read).
    static func check(_ json: JSONValue, name: String) throws -> (sizes: Int, constants: Int) {
        let canonicalJSON = DocumentParser.canonicalize(json)
        guard case .success(let document) = DocumentParser.parse(canonicalJSON) else { return (0, 0) }
        let canonical = CanonicalDocument(canonicalJSON)
        let system = LayoutSystem(document: document)
        let context = MemberContext(document: document, viewPositions: system.viewPositions)
        var sizes = 0, taken = 0
        for (p, old) in document.views.enumerated() {
            let text = try #require(canonical.memberText(.views, at: p))
            let frames: [JSONObject] = [[("width", 10)], [("height", 0)], [("width", 2.5), ("height", 7e6)],
                                       [("height", 1e7), ("width", 0)], [("width", -1)], [("width", 1e7 + 1)],
                                       [("x", 3)], [("width", 3), ("y", 1)]]
                .map { JSONObject($0.map { ($0.0, JSONValue.number($0.1)) }) }
            for frame in frames {
                let fields = JSONObject([("frame", .object(frame))])
                guard let (lane, laneText) = NumberPatch.frame(.object(fields), text: text, old: old,
                                                               limits: .default) else { continue }
                sizes += 1
                let merged = try #require(MemberText.merge(text, fields))
                #expect(laneText == merged, "\(name) \(old.id) frame \(T.text(.object(frame))): text")
                let reread = DocumentParser.parseView(try JSONParser.parse(merged), id: old.id,
                                                      viewPositions: system.viewPositions, limits: .default)
                guard case .success(let expected) = reread else {
                    Issue.record("\(name) \(old.id) frame \(T.text(.object(frame))): the lane took a view the parser rejects")
                    continue
                }
                #expect(lane == expected, "\(name) \(old.id) frame \(T.text(.object(frame)))")
            }
        }
        for (p, old) in document.constraints.enumerated() {
            let text = try #require(canonical.memberText(.constraints, at: p))
            for x in [0, 1, -1, 2.5, -7.25, 1e-9, 1e7, -1e7, 1e7 + 1, 123_456.789, -0.0] {
                let fields = JSONObject([("constant", .number(x))])
                guard let (lane, laneText) = NumberPatch.constant(.object(fields), text: text, old: old,
                                                                  dialect: document.dialect, limits: .default)
                else { continue }
                taken += 1
                let merged = try #require(MemberText.merge(text, fields))
                #expect(laneText == merged, "\(name) \(old.id) constant \(x): text")
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
        return (sizes, taken)
    }

    @Test("the entry is the one reading the merged member gives, for many object-form shapes")
    func shapes() throws {
        let taken = try Self.check(try JSONParser.parse(Self.shapes), name: "shapes")
        #expect(taken.constants > 30)
        #expect(taken.sizes >= 6)
        // Left to the general path: a composite, Mortar's dialect, an expression, a patch with
        // another field or a number out of range.
        let document = DocumentParser.canonicalize(try JSONParser.parse(Self.shapes))
        let canonical = CanonicalDocument(document)
        guard case .success(let model) = DocumentParser.parse(document) else { Issue.record("invalid"); return }
        func lane(_ id: String, _ change: JSONValue) -> ConstraintEntry? {
            let p = model.constraints.firstIndex { $0.id == id }!
            return NumberPatch.constant(change, text: canonical.memberText(.constraints, at: p)!,
                                        old: model.constraints[p], dialect: model.dialect, limits: .default)?.entry
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
        // Sizes: only a width or height the stored frame has, of a view (not a guide), in range.
        func frame(_ id: String, _ change: String) throws -> View? {
            let p = model.views.firstIndex { $0.id == id }!
            return NumberPatch.frame(try JSONParser.parse(change), text: canonical.memberText(.views, at: p)!,
                                     old: model.views[p], limits: .default)?.view
        }
        #expect(try frame("root", #"{"frame": {"width": 867}}"#)?.frame.width == 867)
        #expect(try frame("root", #"{"frame": {"height": 20, "width": 30}}"#)?.frame == FrameSpec(width: 30, height: 20))
        #expect(try frame("r2", #"{"frame": {"width": 1}}"#)?.frame == FrameSpec(x: 10, y: -4, width: 1))
        for (id, change) in [("r2", #"{"frame": {"height": 1}}"#), ("r3", #"{"frame": {"width": 1}}"#),
                             ("root", #"{"frame": {"width": -1}}"#), ("root", #"{"frame": {"width": null}}"#),
                             ("root", #"{"frame": {"x": 1}}"#), ("root", #"{"frame": {}}"#),
                             ("root", #"{"frame": {"width": 1}, "hidden": true}"#), ("g", #"{"frame": {"width": 1}}"#),
                             ("a", #"{"frame": {"width": 1}}"#)] {
            #expect(try frame(id, change) == nil, "\(id) \(change)")
        }
    }

    @Test("the same shapes under each document dialect", arguments: ["standard", "mag", "cartography", "mortar"])
    func dialects(_ dialect: String) throws {
        guard case .object(var top) = try JSONParser.parse(Self.shapes) else { return }
        top["dialect"] = .string(dialect)
        let taken = try Self.check(.object(top), name: dialect)
        #expect(taken.sizes >= 6)
        if dialect == "mortar" { #expect(taken.constants == 0) } else { #expect(taken.constants > 30) }
    }

    @Test("every constraint of every conformance case", arguments: T.conformanceCases())
    func conformance(_ name: String) throws {
        _ = try Self.check(try T.conformance(name)["document"] ?? .null, name: name)
    }
}
