import Foundation
import Testing
import JSON
import LayoutModel
@testable import LayoutEngine

/// The explain cases (Tests/Fixtures/explain, docs/http.md "Explain"): a document, the questions
/// asked of it with their answers worked out by hand (`why`), and `oracleDocument`, the same
/// layout in object form with every constant written out. The oracle check is independent of
/// the solver's rows: a constraint is named exactly when nudging its constant in the oracle and
/// solving afresh moves the value, by the rate the chain implies.
@Suite("Explain cases: hand-computed answers, checked by nudging the oracle")
struct ExplainCaseTests {
    static let folder = EngineFixtures.folder.appendingPathComponent("explain")

    static func cases() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.hasSuffix(".json") }.sorted()
    }

    static func load(_ name: String) throws -> JSONValue {
        try JSONParser.parse(String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8))
    }

    /// The case's document solved, with the entries' texts as written.
    static func system(_ json: JSONValue) throws -> (LayoutSystem, (Int) -> JSONValue?) {
        let members = DocumentParser.canonicalize(json)["constraints"]?.objectValue
        let written = { (i: Int) in members.flatMap { i < $0.count ? $0.values[i] : nil } }
        return (LayoutSystem(document: try EngineFixtures.document(json)), written)
    }

    @Test("each question's answer is the hand-computed one", arguments: cases())
    func answers(_ name: String) throws {
        let file = try Self.load(name)
        let (system, written) = try Self.system(file["document"]!)
        for q in file["explain"]!.arrayValue! {
            let view = q["view"]!.stringValue!, attribute = q["attribute"]!.stringValue!
            let label = "\(name) \(view).\(attribute)"
            let a = try system.explain(view: view, attribute: attribute, written: written).get()
            #expect(a.ambiguous == (q["ambiguous"]?.boolValue ?? false), "\(label): ambiguous")
            #expect(a.freeViews == ConformanceStrings.of(q["freeViews"]), "\(label): free views")
            if let value = q["value"]?.numberValue { #expect(abs(a.value - value) < 1e-9, "\(label): \(a.value)") }
            if let ids = q["constraints"]?.arrayValue {
                #expect(a.constraints.map(\.id) == ids.compactMap { $0["id"]?.stringValue }, "\(label): \(a.constraints.map(\.id))")
            }
            if let chain = q["chain"]?.stringValue { #expect(a.chain == chain, "\(label): \(a.chain)") }
            let broken = q["broken"]?.arrayValue ?? []
            #expect(a.broken.map(\.constraint.id) == broken.compactMap { $0["id"]?.stringValue }, "\(label): broken")
            for (got, want) in zip(a.broken, broken) {
                #expect(got.required == (want["kind"]?.stringValue == "conflicting"), "\(label): \(got.constraint.id)'s kind")
                #expect(Set(got.conflictsWith.map(\.id)) == Set(ConformanceStrings.of(want["conflictsWith"])),
                        "\(label): \(got.constraint.id) conflicts with \(got.conflictsWith.map(\.id))")
            }
        }
    }

    /// Every constant of the oracle: constraint entries' (0 when not written) and the views'
    /// frame and intrinsic size fields, as JSON pointers.
    static func nudgeable(_ oracle: JSONValue) -> [String] {
        var out: [String] = []
        for (id, entry) in oracle["constraints"]?.objectValue?.entries.map({ ($0, $1) }) ?? [] {
            // Object form only: a string's constant is not a member to nudge (the check would
            // miss it), so the case must write its oracle that way.
            precondition(entry.objectValue != nil, "oracle constraint \(id) is not in object form")
            out.append("/constraints/\(id)/constant")
        }
        for (id, view) in oracle["views"]?.objectValue?.entries.map({ ($0, $1) }) ?? [] {
            for group in ["frame", "intrinsicSize"] {
                for (field, _) in view[group]?.objectValue?.entries.map({ ($0, $1) }) ?? [] {
                    out.append("/views/\(id)/\(group)/\(field)")
                }
            }
        }
        return out
    }

    /// `json` with the number at `pointer` (0 when absent) raised by `by`, as a merge patch.
    static func nudged(_ json: JSONValue, _ pointer: String, by: Double) -> JSONValue {
        let keys = pointer.split(separator: "/").map(String.init)
        var patch = JSONValue.number((json.value(atPointer: pointer)?.numberValue ?? 0) + by)
        for key in keys.reversed() { patch = .object(JSONObject([(key, patch)])) }
        return json.applyingMergePatch(patch)
    }

    @Test("the named constraints are exactly those whose constant, nudged in the oracle, moves the value, at the chain's rate",
          arguments: cases())
    func oracle(_ name: String) throws {
        let file = try Self.load(name)
        let oracle = try #require(file["oracleDocument"], "\(name) has no oracle")
        let base = LayoutSystem(document: try EngineFixtures.document(oracle))
        let (system, _) = try Self.system(file["document"]!)
        #expect(Set(base.diagnostics.broken.map(\.id)) == Set(system.diagnostics.broken.map(\.id)), "\(name): broken")
        // Small enough that no inequality changes sides; large against rounding.
        let epsilon = 1e-3
        for q in file["explain"]!.arrayValue! {
            let view = q["view"]!.stringValue!, attribute = q["attribute"]!.stringValue!
            let label = "\(name) \(view).\(attribute)"
            if q["ambiguous"]?.boolValue == true {
                // A free view of the question is ambiguous in the oracle too.
                let free = Set(ConformanceStrings.of(q["freeViews"]))
                #expect(!free.isEmpty && free.isSubset(of: Set(base.diagnostics.ambiguous)), "\(label): \(base.diagnostics.ambiguous)")
                continue
            }
            // The value read from the oracle's solution (`explain` evaluates the anchor's terms; its
            // constraints are not used here).
            func value(_ s: LayoutSystem) throws -> Double { try s.explain(view: view, attribute: attribute).get().value }
            let before = try value(base)
            #expect(abs(before - (q["value"]?.numberValue ?? .nan)) < 1e-9, "\(label): the oracle says \(before)")
            var expected: [String: Double] = [:]
            for c in q["constraints"]?.arrayValue ?? [] {
                if let p = c["nudge"]?.stringValue { expected[p] = c["rate"]?.numberValue }
            }
            for pointer in Self.nudgeable(oracle) {
                let moved = LayoutSystem(document: try EngineFixtures.document(Self.nudged(oracle, pointer, by: epsilon)))
                let rate = (try value(moved) - before) / epsilon
                #expect(abs(rate - (expected[pointer] ?? 0)) < 1e-6, "\(label): \(pointer) moves it at \(rate)")
            }
            for pointer in expected.keys { #expect(Self.nudgeable(oracle).contains(pointer), "\(label): \(pointer) is not in the oracle") }
        }
    }

    @Test("an explanation from a session that keeps its diagnostics equals the general path's", arguments: cases())
    func keptAmbiguity(_ name: String) throws {
        let file = try Self.load(name)
        let (stale, written) = try Self.system(file["document"]!)
        var kept = stale
        kept.refreshDiagnostics()
        for v in kept.document.views {
            for attribute in ["top", "leading", "width", "centerY", "bottom", "lastBaseline"] {
                let a = kept.explain(view: v.id, attribute: attribute, written: written)
                let b = stale.explain(view: v.id, attribute: attribute, written: written)
                #expect(a == b, "\(name) \(v.id).\(attribute)")
            }
        }
    }
}

/// The strings of a JSON array (none when absent).
enum ConformanceStrings {
    static func of(_ value: JSONValue?) -> [String] { (value?.arrayValue ?? []).compactMap(\.stringValue) }
}
