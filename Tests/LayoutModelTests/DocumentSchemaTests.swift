import Foundation
import Testing
import JSON
@testable import LayoutModel

/// docs/layout-document.schema.json against the parser, which is the truth about documents.
///
/// Every conformance document and a set of seeds covering every form validate against the schema;
/// then each seed is mutated at every node (its value swapped for one of every JSON type and some
/// out-of-range numbers, a member removed, an unknown member added) and both judge each mutant:
/// - what the parser accepts, the schema must accept (the schema is never stricter);
/// - what the parser rejects with a *shape* problem (`isShapeProblem`: a wrong type, an unknown or
///   missing field, a word outside its set, a number outside its range...), the schema must reject.
/// Rejections for what a schema cannot see (unknown view references, parent cycles, duplicate ids
/// in the array form, expression and visual format syntax, Auto Layout's rules) may go either way.
/// The schema is applied in Python by scripts/lib/schema_check.py (`jsonschema`, installed by
/// scripts/lib/deps.sh's `ensure_schema_tools`, which scripts/test runs; `jsonschema_rs` instead
/// when it is importable, twenty times faster): the test fails, not skips, when neither is there.
@Suite("The layout document's JSON Schema agrees with the parser")
struct DocumentSchemaTests {
    static let root = Fixtures.folder.deletingLastPathComponent().deletingLastPathComponent()
    static let schema = root.appendingPathComponent("docs/layout-document.schema.json")

    /// Documents that use what the conformance cases do not: the array form, guides, options and
    /// metrics, `when` rules, per-entry dialects, nulls in the object form, `id` repeating the key,
    /// flags, delegate switches, named priorities, `$schema`.
    static let seeds: [String] = [
        """
        {"$schema": "http://127.0.0.1:8080/schemas/layout-document.json", "direction": "rtl", "dialect": "mag",
         "views": {"root": {"id": "root", "frame": {"x": 0, "y": 0, "width": 375, "height": 667}},
                   "g": {"parent": "root", "kind": "guide", "frame": {"x": 10}},
                   "a": {"parent": "g", "kind": "view", "hidden": false, "alpha": 0.5,
                         "intrinsicSize": {"width": 10, "height": 20},
                         "hugging": {"horizontal": "defaultHigh", "vertical": 251},
                         "compressionResistance": {"horizontal": 1000, "vertical": "low"},
                         "margins": {"top": 1, "left": 2, "bottom": 3, "right": 4},
                         "baseline": {"first": 12, "last": 4}},
                   "b": {"parent": "g"}},
         "constraints": {
           "c1": {"id": "c1", "first": "a.leading", "relation": ">=", "second": "g.leadingAnchor",
                  "multiplier": null, "constant": 4, "priority": "high", "activation": "manual", "active": true,
                  "group": "g1", "identifier": "x", "dialect": "standard"},
           "c2": {"first": "a.size", "relation": null, "second": null, "multiplier": [1, 2], "constant": {"width": 1, "height": 2}},
           "c3": {"first": "b.edges", "second": "root.m_edges", "constant": {"top": 1, "left": 2, "bottom": 3, "right": 4}},
           "c4": {"expr": "b.top == a.bottom + 8", "activation": {"when": "root.width < 600 && !flag(compact)"}},
           "c5": {"format": "V:|-m-[a]-[b]", "metrics": {"m": 20}, "options": ["alignAllLeading", ".directionLeftToRight"]},
           "c6": {"format": "H(|-a-b-|)", "priority": 500},
           "c7": {"align": "centerY", "views": ["a", "b"], "activation": "bothVisible"},
           "c8": {"distribute": "equalWidth", "views": ["a", "b"], "activation": "delegate"},
           "c9": {"distribute": "vertical", "spacing": -2, "views": ["a", "b"], "activation": "firstInvisible"},
           "c10": "b.height == 30 ~ 250"},
         "flags": {"compact": false}, "delegate": {"c8": true, "gone": false}}
        """,
        """
        {"views": [{"id": "root", "frame": {"width": 200, "height": 100}}, {"id": "a", "parent": "root"}],
         "constraints": [{"first": "a.left", "second": "root.left", "constant": 10},
                         {"id": "top", "expr": "a.top == root.top + 10", "dialect": "mortar"},
                         "a.size == (50, 20)"]}
        """,
    ]

    /// (name, document) of every case the schema must accept.
    static func validDocuments() throws -> [(String, JSONValue)] {
        var out: [(String, JSONValue)] = []
        for name in Fixtures.conformanceCases() {
            let json = try Fixtures.load(Fixtures.conformanceFolder.appendingPathComponent(name))
            if let document = json["document"] { out.append((name, document)) }
        }
        for (i, text) in seeds.enumerated() { out.append(("seed \(i)", DocTest.json(text))) }
        return out
    }

    enum Token: Hashable {
        case key(String)
        case index(Int)
    }

    /// Every node's path (the root included), depth first.
    static func paths(_ value: JSONValue, _ prefix: [Token] = []) -> [[Token]] {
        var out = [prefix]
        switch value {
        case .object(let o): for (k, v) in o.entries { out += paths(v, prefix + [.key(k)]) }
        case .array(let a): for (i, v) in a.enumerated() { out += paths(v, prefix + [.index(i)]) }
        default: break
        }
        return out
    }

    /// `value` with the node at `path` replaced (nil: removed).
    static func replacing(_ value: JSONValue, at path: ArraySlice<Token>, with new: JSONValue?) -> JSONValue? {
        guard let first = path.first else { return new }
        switch (value, first) {
        case (.object(var o), .key(let k)):
            guard let child = o[k] else { return value }
            o[k] = replacing(child, at: path.dropFirst(), with: new)
            return .object(o)
        case (.array(var a), .index(let i)):
            if let next = replacing(a[i], at: path.dropFirst(), with: new) { a[i] = next } else { a.remove(at: i) }
            return .array(a)
        default:
            return value
        }
    }

    /// Values every node is swapped for: one of each JSON type, words no enum has, numbers outside
    /// the ranges of priorities, alpha, sizes and magnitudes.
    static let swaps: [JSONValue] = [
        .string("zz"), .string("a.zz"), .number(0), .number(-1), .number(0.5), .number(1001), .number(2e7),
        .bool(true), .null, .array([]), .array([.string("a")]), .object(JSONObject()),
        .object(JSONObject([("zz", .number(1))])),
    ]

    static let mutantsPerCase = 300

    static func mutants(of document: JSONValue) -> [JSONValue] {
        var out: [JSONValue] = []
        for path in paths(document) {
            let slice = path[...]
            for swap in swaps { if let m = replacing(document, at: slice, with: swap) { out.append(m) } }
            if !path.isEmpty, let m = replacing(document, at: slice, with: nil) { out.append(m) }
            // An unknown member added to an object.
            if case .object(var o)? = document.value(at: path) {
                o["zz"] = .number(1)
                if let m = replacing(document, at: slice, with: .object(o)) { out.append(m) }
            }
        }
        return out
    }

    /// A problem about the document's shape, which a JSON Schema can see. Problems inside the
    /// languages (expressions, visual formats, `when` predicates: strings the parser reads) and an
    /// `id` that differs from its key are not: a schema cannot parse the one or compare the other.
    static func isShapeProblem(_ problem: Problem, in document: JSONValue) -> Bool {
        let code = ProblemCode(rawValue: problem.code)
        switch code {
        case .invalidID, .noViews, .notForGuide, .unknownConstraintForm, .unknownOption: return true
        case .invalidType, .missingField, .unknownField, .invalidValue, .invalidPriority, .outOfRange,
             .negativeSize, .numberOutOfRange, .invalidRelation, .invalidAnchor, .unknownAttribute:
            let tokens = problem.pointer.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
                .map { $0.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~") }
            if code == .invalidValue && tokens.last == "id" { return false }
            // Inside a language: the pointer is at (or into) an expression, format or predicate text.
            var node: JSONValue? = document
            var parentIsConstraints = false
            for (i, t) in tokens.enumerated() {
                if case .string = node { return false }
                parentIsConstraints = i == 1 && tokens[0] == "constraints"
                node = Self.child(node, t)
                if ["expr", "format", "when"].contains(t), case .string? = node { return false }
            }
            if parentIsConstraints, case .string? = node { return false }
            return true
        default:
            return false
        }
    }

    /// The member `token` of an object, or the element it numbers of an array.
    static func child(_ node: JSONValue?, _ token: String) -> JSONValue? {
        if let member = node?[token] { return member }
        guard let i = Int(token), let a = node?.arrayValue, i >= 0, i < a.count else { return nil }
        return a[i]
    }

    @Test("every conformance document and seed validates against the schema, and mutants agree with the parser")
    func schemaAgreesWithParser() throws {
        var lines: [String] = []
        var seen = Set<String>()
        func add(_ name: String, _ document: JSONValue) {
            let text = JSONWriter.string(document)
            guard seen.insert(text).inserted else { return }
            let verdict: String
            var problems: [String] = []
            switch DocumentParser.parse(document) {
            case .success: verdict = "accept"
            case .failure(let e):
                problems = e.problems.map { "\($0.pointer) \($0.code)" }
                verdict = e.problems.contains { Self.isShapeProblem($0, in: document) } ? "shape" : "other"
            }
            var w = JSONWriter(capacity: text.utf8.count + 128)
            w.appendRaw("{\"name\":")
            w.appendString(name)
            w.appendRaw(",\"verdict\":")
            w.appendString(verdict)
            w.appendRaw(",\"problems\":")
            w.write(.array(problems.map { .string($0) }))
            w.appendRaw(",\"document\":")
            w.write(document)
            w.appendRaw("}")
            lines.append(String(decoding: w.bytes, as: UTF8.self))
        }
        let valid = try Self.validDocuments()
        for (name, document) in valid {
            guard case .success = DocumentParser.parse(document) else {
                Issue.record("\(name) does not parse: it cannot be a seed: \(DocumentParser.parse(document))")
                continue
            }
            add(name, document)
        }
        for (name, document) in valid {
            // Every mutant of the seeds (made to hold every form); of the larger conformance
            // documents, an evenly spread sample, so that the run stays within seconds.
            let all = Self.mutants(of: document)
            let step = name.hasPrefix("seed") ? 1 : max(1, all.count / Self.mutantsPerCase)
            for i in stride(from: 0, to: all.count, by: step) { add("\(name) mutant \(i)", all[i]) }
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("layoutd-schema-\(getpid()).jsonl")
        try (lines.joined(separator: "\n") + "\n").write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Self.root.appendingPathComponent("scripts/lib/schema_check.py").path,
                             Self.schema.path, file.path]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let report = String(decoding: data, as: UTF8.self)
        #expect(process.terminationStatus == 0, "schema and parser disagree:\n\(report)")
        let json = try JSONParser.parse(report)
        let counts = json["counts"]
        // Enough mutants of each kind that the two rules are really exercised.
        #expect((counts?["accept"]?.numberValue ?? 0) >= 1_000, "\(report)")
        #expect((counts?["shape"]?.numberValue ?? 0) >= 5_000, "\(report)")
        print("DocumentSchemaTests: \(lines.count) documents; \(counts.map { JSONWriter.string($0) } ?? report)")
    }
}

extension JSONValue {
    /// The node at `path`, or nil.
    func value(at path: [DocumentSchemaTests.Token]) -> JSONValue? {
        var node: JSONValue? = self
        for t in path {
            switch t {
            case .key(let k): node = node?[k]
            case .index(let i): node = node?.arrayValue.flatMap { i < $0.count ? $0[i] : nil }
            }
        }
        return node
    }
}
