import Testing
import JSON
import LayoutModel
@testable import LayoutEngine

/// Explain (issue 31; docs/http.md, "Explain"): why a view's attribute has its value. Each case
/// says how its value and constraints were worked out by hand.
@Suite("Explain: the constraints that determine a value")
struct ExplainTests {
    /// Solves `text` and explains `view.attribute`, with the entries' texts as written.
    static func explain(_ text: String, _ view: String, _ attribute: String) throws -> ExplainAnswer {
        let json = EngineFixtures.json(text)
        let system = LayoutSystem(document: try EngineFixtures.document(json))
        let members = DocumentParser.canonicalize(json)["constraints"]?.objectValue
        return try system.explain(view: view, attribute: attribute,
                                  written: { i in members.flatMap { i < $0.count ? $0.values[i] : nil } }).get()
    }

    static let chainDocument = """
    {"views": {"root": {"frame": {"width": 300, "height": 200}},
               "label": {"parent": "root"}, "below": {"parent": "root"}},
     "constraints": {"left": "label.left == root.left + 10", "top": "label.top == root.top + 10",
                     "b": "below.top == label.bottom + 8", "h": {"expr": "label.height == 36"},
                     "w": "label.width == 100", "bl": {"first": "below.left", "second": "root.left"},
                     "bw": "below.width == 50", "bh": "below.height == 20"}}
    """

    @Test("below.top = label.bottom + 8, label.bottom = label.top + 36, label.top = root.top + 10, root.top = 0: 54")
    func determinedChain() throws {
        // By hand: root.top = 0 (its frame), label.top = 0 + 10, label.height = 36, so label.bottom
        // = 46 and below.top = 46 + 8 = 54. Nothing horizontal takes part.
        let a = try Self.explain(Self.chainDocument, "below", "top")
        #expect(a.value == 54)
        #expect(!a.ambiguous)
        #expect(a.freeViews.isEmpty)
        #expect(a.constraints.map(\.id) == ["b", "top", "h", "root.frame.y"])
        #expect(a.constraints.map(\.text) == ["below.top == label.bottom + 8", "label.top == root.top + 10",
                                              "label.height == 36", "root.top == 0 (root: the root's frame (frame.y))"])
        #expect(a.constraints.allSatisfy { $0.priority == 1000 })
        #expect(a.chain == "below.top = label.bottom + 8 (b) ; label.top = root.top + 10 (top) ; "
                + "label.height = 36 (h) ; root.top = 0 (root: the root's frame (frame.y))")
        #expect(a.broken.isEmpty)
        // An alias names the same attribute; the answer says its canonical name.
        #expect(try Self.explain(Self.chainDocument, "below", "topAnchor").attribute == "top")
    }

    @Test("an object-form entry is written out; an activation rule is named with the constraint")
    func writtenForms() throws {
        let doc = """
        {"views": {"root": {"frame": {"width": 300, "height": 200}}, "a": {"parent": "root"}},
         "constraints": {"x": {"first": "a.left", "second": "root.left", "constant": 12},
                         "w": {"expr": "a.width == 80", "activation": {"when": "root.width < 600"}},
                         "y": "a.top == root.top", "h": "a.height == 5"}}
        """
        let left = try Self.explain(doc, "a", "right")
        // a.right = a.left + a.width = (0 + 12) + 80.
        #expect(left.value == 92)
        #expect(left.constraints.map(\.id) == ["x", "w", "root.frame.x"])
        #expect(left.constraints[0].text == "a.left == root.left + 12")
        #expect(left.constraints[1].text == "a.width == 80 (active when root.width < 600)")
        #expect(left.chain.contains("a.width = 80 (w, active when root.width < 600)"))
    }

    @Test("a value nothing pins is ambiguous, with the views a free direction moves")
    func ambiguous() throws {
        let doc = """
        {"views": {"root": {"frame": {"width": 100, "height": 100}}, "a": {"parent": "root"}},
         "constraints": ["a.width == 10", "a.height == 10", "a.top == root.top"]}
        """
        let left = try Self.explain(doc, "a", "left")
        #expect(left.ambiguous)
        #expect(left.freeViews == ["a"])
        // Its width is determined although the view slides: the same free direction moves both edges.
        let width = try Self.explain(doc, "a", "width")
        #expect(!width.ambiguous && width.value == 10 && width.constraints.map(\.id) == ["#0"])
        #expect(try !Self.explain(doc, "a", "top").ambiguous)
    }

    @Test("a broken required constraint on the value comes with its conflict set, each member with its text")
    func brokenConflictSet() throws {
        // a and b come before the stack: their widths are processed first, so fill-equally breaks.
        let doc = """
        {"views": {"root": {"frame": {"width": 300, "height": 100}},
                   "a": {"frame": {"width": 10}}, "b": {"frame": {"width": 20}},
                   "toolbar": {"parent": "root", "stack": {"arranged": ["a", "b"], "distribution": "fillEqually"}}},
         "constraints": {"pin": "toolbar.cornerTL == root.cornerTL"}}
        """
        let a = try Self.explain(doc, "a", "width")
        #expect(a.value == 10)
        #expect(a.constraints.map(\.id) == ["a.frame.width"])
        let broken = try #require(a.broken.first { $0.constraint.id == "toolbar/fill-equally-1" })
        #expect(broken.required)
        #expect(Set(broken.conflictsWith.map(\.id)) == ["a.frame.width", "b.frame.width"])
        #expect(broken.conflictsWith.contains { $0.text == "b.width == 20 (b: frame.width)" })
        #expect(broken.constraint.text.contains("toolbar/fill-equally-1: stack view rule"))
    }

    @Test("a stack's generated constraint is named by its id: b.left = a.right + 8 (toolbar/spacing-1)")
    func stackRule() throws {
        // By hand: toolbar at x 0 in root (x 0); a at the canvas start, 30 wide (intrinsic);
        // b.left = 0 + 30 + 8 = 38.
        let doc = """
        {"views": {"root": {"frame": {"width": 300, "height": 100}},
                   "toolbar": {"parent": "root", "frame": {"x": 0, "y": 0},
                               "stack": {"arranged": ["a", "b"], "spacing": 8}},
                   "a": {"intrinsicSize": {"width": 30, "height": 10}},
                   "b": {"intrinsicSize": {"width": 40, "height": 10}}}}
        """
        let b = try Self.explain(doc, "b", "left")
        #expect(b.value == 38)
        #expect(!b.ambiguous)
        let ids = b.constraints.map(\.id)
        #expect(ids.first == "toolbar/spacing-1")
        for id in ["toolbar/canvas-start", "toolbar.frame.x", "root.frame.x"] { #expect(ids.contains(id), "\(ids)") }
        #expect(ids.contains { $0.hasPrefix("a.intrinsicSize.width.") }, "\(ids)")
        #expect(b.constraints[0].text == "b.left == a.right + 8 (toolbar/spacing-1: stack view rule)")
        #expect(b.chain.hasPrefix("b.left = a.right + 8 (toolbar/spacing-1: stack view rule) ; "))
    }

    @Test("the root's frame explains its size; a fitting root names what holds it and the fitting size it beats")
    func rootFrame() throws {
        let given = try Self.explain(#"{"views": {"root": {"frame": {"width": 400, "height": 300}}}}"#, "root", "width")
        #expect(given.value == 400)
        #expect(given.constraints.map(\.id) == ["root.frame.width"])
        #expect(given.constraints[0].text == "root.width == 400 (root: the root's frame (frame.width))")
        #expect(given.chain == "root.width = 400 (root: the root's frame (frame.width))")
        // By hand: a.left = root.left, a.right = root.right, a.width = 50: root.width = 50 (the
        // root's x cancels). The fitting size (root.width == 0 at 50) loses to them.
        let fitting = try Self.explain("""
        {"views": {"root": {}, "a": {"parent": "root"}},
         "constraints": {"l": "a.leading == root.leading", "t": "a.trailing == root.trailing", "w": "a.width == 50",
                         "y": "a.top == root.top", "hh": "a.height == 5", "b": "a.bottom == root.bottom"}}
        """, "root", "width")
        #expect(fitting.value == 50)
        #expect(Set(fitting.constraints.map(\.id)) == ["l", "t", "w"])
        let unsatisfied = try #require(fitting.broken.first)
        #expect(unsatisfied.constraint.id == "root.frame.width" && !unsatisfied.required)
        #expect(unsatisfied.constraint.priority == 50)
        #expect(Set(unsatisfied.conflictsWith.map(\.id)) == ["l", "t", "w"])
    }

    @Test("an unknown view or attribute, or a composite, is refused with a suggestion")
    func refusals() throws {
        let system = LayoutSystem(document: try EngineFixtures.document(Self.chainDocument))
        #expect(throws: ExplainError.unknownView("lable", suggestion: "label")) {
            try system.explain(view: "lable", attribute: "top").get()
        }
        #expect(throws: ExplainError.unknownAttribute("centrX", suggestion: "centerX")) {
            try system.explain(view: "label", attribute: "centrX").get()
        }
        #expect(throws: ExplainError.compositeAttribute("edges", components: ["top", "leading", "bottom", "trailing"])) {
            try system.explain(view: "label", attribute: "edges").get()
        }
    }

    @Test("the answer as JSON has every field, values as numbers")
    func json() throws {
        let a = try Self.explain(Self.chainDocument, "below", "top")
        let j = a.json
        #expect(j["view"]?.stringValue == "below" && j["attribute"]?.stringValue == "top")
        #expect(j["value"]?.numberValue == 54 && j["ambiguous"] == JSONValue.bool(false))
        #expect(j["constraints"]?.arrayValue?.first?["id"]?.stringValue == "b")
        #expect(j["constraints"]?.arrayValue?.first?["priority"]?.numberValue == 1000)
        #expect(j["chain"]?.stringValue == a.chain)
        #expect(j["freeViews"]?.arrayValue?.isEmpty == true && j["broken"]?.arrayValue?.isEmpty == true)
    }
}

/// A session keeps `diagnostics.ambiguous` current (`refreshDiagnostics`); explain then skips the
/// free directions when it names no view. An answer must stay what the general path gives.
@Suite("Explain with the kept ambiguity")
struct ExplainKeptAmbiguityTests {
    @Test("a session made ambiguous by an edit after a refresh still answers ambiguous, with the free view")
    func ambiguousAfterEdit() throws {
        let doc = """
        {"views": {"root": {"frame": {"width": 100, "height": 100}}, "a": {"parent": "root"}},
         "constraints": {"l": "a.left == root.left + 5", "w": "a.width == 10", "h": "a.height == 10", "t": "a.top == root.top"}}
        """
        var system = LayoutSystem(document: try EngineFixtures.document(doc))
        #expect(system.refreshDiagnostics().ambiguous.isEmpty)
        #expect(try !system.explain(view: "a", attribute: "left").get().ambiguous)
        // Removing `l` leaves a's left edge free; the kept ambiguity is stale until refreshed.
        var edited = system.document
        edited.constraints.removeAll { $0.id == "l" }
        system.apply(.document(edited))
        let before = try system.explain(view: "a", attribute: "left").get()
        #expect(before.ambiguous && before.freeViews == ["a"])
        #expect(system.refreshDiagnostics().ambiguous == ["a"])
        let after = try system.explain(view: "a", attribute: "left").get()
        #expect(after == before)
        #expect(try !system.explain(view: "a", attribute: "width").get().ambiguous)
    }
}

/// Equally tight constraints are all named (docs/http.md, "Explain"), whatever edits led to the
/// state: which one the solver's row holds depends on the order they became tight.
@Suite("Explain names the same constraints whatever the history")
struct ExplainHistoryTests {
    /// `a` wants 20 wide (priority 500) under two caps, `w2 <= cap2` and `w3 <= cap3`.
    static func document(cap2: Int, cap3: Int) -> String {
        """
        {"views": {"root": {"frame": {"width": 100, "height": 100}}, "a": {"parent": "root"}},
         "constraints": {"l": "a.left == root.left", "t": "a.top == root.top", "h": "a.height == 10",
                         "o": {"first": "a.width", "constant": 20, "priority": 500},
                         "w2": "a.width <= \(cap2)", "w3": "a.width <= \(cap3)"}}
        """
    }

    /// A session of `from` brought to `to` by changing constants in place, in `order`.
    static func edited(from: String, to: String, order: [String]) throws -> LayoutSystem {
        var system = LayoutSystem(document: try EngineFixtures.document(from))
        system.refreshDiagnostics()
        let target = try EngineFixtures.document(to)
        for id in order {
            let i = try #require(target.constraints.firstIndex { $0.id == id })
            let stats = system.apply(.constant(entry: i, constant: target.constraints[i].items[0].constant))
            #expect(!stats.rebuilt, "the constant change of \(id) rebuilt the system")
        }
        system.refreshDiagnostics()
        return system
    }

    @Test("two caps brought to the same width by constant changes, in either order, explain as a fresh solve does",
          arguments: [(12, 10, ["w2"]), (10, 12, ["w3"]), (14, 12, ["w3", "w2"]), (12, 14, ["w2", "w3"])])
    func capsTiedByEdits(_ start: (Int, Int, [String])) throws {
        let final = Self.document(cap2: 10, cap3: 10)
        let session = try Self.edited(from: Self.document(cap2: start.0, cap3: start.1), to: final, order: start.2)
        var fresh = LayoutSystem(document: try EngineFixtures.document(final))
        fresh.refreshDiagnostics()
        for attribute in ["width", "right", "centerX"] {
            let a = try session.explain(view: "a", attribute: attribute).get()
            let b = try fresh.explain(view: "a", attribute: attribute).get()
            #expect(a == b, "\(attribute): \(a.constraints.map(\.id)) after edits, \(b.constraints.map(\.id)) fresh")
        }
        // By hand: a.width = 10, held by both caps (each alone would hold it); o is unsatisfied,
        // held off by both.
        let width = try fresh.explain(view: "a", attribute: "width").get()
        #expect(width.value == 10 && width.constraints.map(\.id).sorted() == ["w2", "w3"])
        let o = try #require(width.broken.first { $0.constraint.id == "o" })
        #expect(!o.required && Set(o.conflictsWith.map(\.id)) == ["w2", "w3"])
    }

    @Test("an equality and an inequality at the same value are both named; an unrelated tight constraint is not")
    func equalityAndCap() throws {
        // By hand: a.width = 10 (w); the cap c (a.width <= 10) is met with equality; b.width <= a.width
        // is tight too (b wants 30) but it bounds b, not a.
        let doc = """
        {"views": {"root": {"frame": {"width": 100, "height": 100}}, "a": {"parent": "root"}, "b": {"parent": "root"}},
         "constraints": {"w": "a.width == 10", "c": "a.width <= 10", "bw": "b.width <= a.width",
                         "bo": {"first": "b.width", "constant": 30, "priority": 500}}}
        """
        let system = LayoutSystem(document: try EngineFixtures.document(doc))
        let width = try system.explain(view: "a", attribute: "width").get()
        #expect(width.constraints.map(\.id).sorted() == ["c", "w"])
        let b = try system.explain(view: "b", attribute: "width").get()
        #expect(b.value == 10 && b.constraints.map(\.id).contains("bw"))
    }
}
