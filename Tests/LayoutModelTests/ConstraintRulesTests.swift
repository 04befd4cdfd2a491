import Testing
@testable import LayoutModel

@Suite("Constraint rules (Auto Layout's rejections)")
struct ConstraintRulesTests {
    typealias F = ExprFixture

    /// The codes `ConstraintRules.check` gives the items of an expression.
    static func codes(_ text: String, _ dialect: Dialect = .standard) -> [String] {
        let items = F.items(F.expr(text, dialect))
        return ConstraintRules.check(items, context: F.context(dialect)).map(\.code)
    }

    @Test("accepted: same-axis positions, dimensions of any axis, positions with dimensions", arguments: [
        "a.left == b.right + 8", "a.top == b.bottom", "a.height == a.width * 0.5", "a.width == b.height",
        "b.top == a.bottom + (root.height - 100) / 4", "a.centerX == root.centerX * 2", "a.width == 100",
        "a.edges == root.edges + 10", "a.leading == b.trailing", "a.leadingMargin == b.centerX",
        "label.firstBaseline == red.centerY", "guide.edges == red.edges", "a.left + a.width == b.right",
        "a.top == b.left * 0 + c.top",
    ])
    func accepted(_ text: String) {
        #expect(Self.codes(text) == [])
    }

    @Test("rejected, with the rule's code", arguments: [
        ("a.left == b.top", "cross_axis"),
        ("a.centerX == b.centerY + 10", "cross_axis"),
        ("a.leadingMargin == b.lastBaseline", "cross_axis"),
        ("a.leading == b.left", "mixed_direction"),
        ("a.trailingMargin == b.rightMargin", "mixed_direction"),
        ("a.horizontal == b.sides", "mixed_direction"),
        ("a.left == 10", "position_constant"),
        ("a.centerY == 10 * 3", "position_constant"),
        ("a.top == a.height * 0 + 5", "position_constant"),
        ("a.edges == 10", "position_constant"),
        ("guide.topMargin == a.top", "not_for_guide"),
        ("guide.firstBaseline == a.top", "not_for_guide"),
        ("a.top == guide.baseline", "not_for_guide"),
        ("guide.edgesWithinMargins == a.edges", "not_for_guide"),
        ("a.width == o1.width", "no_common_root"),
        ("a.width - a.width == 0", "no_anchor"),
        ("a.width == x.width", "no_common_root"),
    ])
    func rejected(_ text: String, _ code: String) {
        #expect(Self.codes(text).contains(code), "\(Self.codes(text))")
    }

    @Test("mortar accepts a position equal to a bare constant")
    func mortarPositions() {
        #expect(Self.codes("a.m_left |=| 10", .mortar) == [])
        #expect(Self.codes("root.m_top |=| 10", .mortar) == [])
    }

    @Test("problems carry the caller's pointer and name the anchors")
    func detail() {
        let item = LinearConstraint(terms: [LinearTerm(Anchor("a", .left), 1), LinearTerm(Anchor("b", .top), -1)],
                                    constant: 0, relation: .equal, priority: 1000, views: ["a", "b"], firstView: "a")
        let p = ConstraintRules.check(item, context: F.context(), pointer: "/expr")
        #expect(p.map(\.pointer) == ["/expr"])
        #expect(p.first?.detail.contains("a.left") == true && p.first?.detail.contains("b.top") == true)
    }

    @Test("an item with no terms, and one naming an unknown view")
    func degenerate() {
        let empty = LinearConstraint(terms: [], constant: 3, relation: .equal, priority: 1000, views: [], firstView: nil)
        #expect(ConstraintRules.check(empty, context: F.context()).map(\.code) == ["no_anchor"])
        let unknown = LinearConstraint(terms: [LinearTerm(Anchor("zz", .width), 1)], constant: 0, relation: .equal,
                                       priority: 1000, views: ["zz"], firstView: "zz")
        #expect(ConstraintRules.check(unknown, context: F.context()).map(\.code) == ["unknown_view"])
    }

    @Test("the items of one entry report a shared problem once")
    func dedup() {
        let items = F.items(F.expr("a.edges == 10"))
        #expect(items.count == 4)
        let p = ConstraintRules.check(items, context: F.context())
        #expect(p.count == 4)   // four different anchors
        let twice = F.items(F.expr("a.left == b.top")) + F.items(F.expr("a.left == b.top"))
        #expect(ConstraintRules.check(twice, context: F.context()).count == 1)
    }

    @Test("roots: walking parents ends at a root, a cycle has none")
    func roots() {
        #expect(ConstraintRules.root(of: "label", views: F.views) == "root")
        #expect(ConstraintRules.root(of: "root", views: F.views) == "root")
        #expect(ConstraintRules.root(of: "o1", views: F.views) == "other")
        #expect(ConstraintRules.root(of: "x", views: F.views) == nil)
        #expect(ConstraintRules.root(of: "zz", views: F.views) == nil)
    }
}
