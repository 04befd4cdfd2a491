import Testing
@testable import LayoutModel

@Suite("Expression dialects: standard, cartography, mag, mortar")
struct DialectTests {
    typealias F = ExprFixture

    /// The same text in each dialect: [standard, cartography, mag, mortar].
    @Test("the same text in each dialect", arguments: [
        ("a.top == (root.bottom - 100) * 0.5", [
            "a.top - 0.5*root.bottom + 50 == 0", "a.top - 0.5*root.bottom + 50 == 0",
            "a.top - 0.5*root.bottom + 100 == 0", "a.top - 0.5*root.bottom + 100 == 0"]),
        ("a.width == b.width + 10 + 5", [
            "a.width - b.width - 15 == 0", "a.width - b.width - 15 == 0",
            "a.width - b.width - 5 == 0", "a.width - b.width - 15 == 0"]),
        ("a.width == b.width * 2 * 3", [
            "a.width - 6*b.width == 0", "a.width - 6*b.width == 0",
            "a.width - 3*b.width == 0", "a.width - 6*b.width == 0"]),
        ("a.width == (b.width + 10) / 2", [
            "a.width - 0.5*b.width - 5 == 0", "a.width - 0.5*b.width - 5 == 0",
            "a.width - 0.5*b.width - 10 == 0", "a.width - 0.5*b.width - 10 == 0"]),
        ("a.width == b.width / 4 + 10", [
            "a.width - 0.25*b.width - 10 == 0", "a.width - 0.25*b.width - 10 == 0",
            "a.width - 0.25*b.width - 10 == 0", "a.width - 0.25*b.width - 10 == 0"]),
        ("a.width == b.width + 10 - 4", [
            "a.width - b.width - 6 == 0", "a.width - b.width - 6 == 0",
            "a.width - b.width + 4 == 0", "a.width - b.width - 6 == 0"]),
        ("a.width == b.width + 10 * 2", [
            "a.width - b.width - 20 == 0", "a.width - b.width - 20 == 0",
            "a.width - b.width - 20 == 0", "a.width - b.width - 20 == 0"]),
        ("a.width == 2 * (b.width + 10)", [
            "a.width - 2*b.width - 20 == 0", "a.width - 2*b.width - 20 == 0",
            "a.width - 2*b.width - 20 == 0", "a.width - 2*b.width - 10 == 0"]),
        ("a.width + 10 + 5 == b.width", [
            "a.width - b.width + 15 == 0", "a.width - b.width + 15 == 0",
            "a.width - b.width + 15 == 0", "a.width - b.width + 15 == 0"]),
        ("a.width == b.width + c.width + 10 + 5", [
            "a.width - b.width - c.width - 15 == 0", "a.width - b.width - c.width - 15 == 0",
            "a.width - b.width - c.width - 15 == 0", "a.width - b.width - c.width - 15 == 0"]),
        ("a.size == b.size * (2, 3) + 5 + (1, 2)", [
            "a.width - 2*b.width - 6 == 0", "a.width - 2*b.width - 6 == 0",
            "a.width - 2*b.width - 1 == 0", "a.width - 2*b.width - 6 == 0"]),
        ("a.edges == b.edges + 10", [
            "a.top - b.top - 10 == 0", "a.top - b.top - 10 == 0",
            "a.top - b.top - 10 == 0", "a.top - b.top - 10 == 0"]),
    ])
    func perDialect(_ text: String, _ expected: [String]) {
        let dialects: [Dialect] = [.standard, .cartography, .mag, .mortar]
        for (d, e) in zip(dialects, expected) {
            #expect(F.rendered(text, d).first == e, "\(d)")
        }
    }

    @Test("mag: the constant of a composite chain is replaced, signed as an inset")
    func magInset() {
        #expect(F.rendered("a.edges == b.edges + 5 + 10", .mag) == [
            "a.top - b.top - 10 == 0", "a.leading - b.leading - 10 == 0",
            "a.bottom - b.bottom + 10 == 0", "a.trailing - b.trailing + 10 == 0"])
        #expect(F.rendered("a.width == b * 2 / 4", .mag) == ["a.width - 0.25*b.width == 0"])
    }

    @Test("mag: division by zero in a chain is still a problem")
    func magDivisionByZero() {
        #expect(F.problems(F.expr("a.width == b.width / 0", .mag)).map(\.code) == ["division_by_zero"])
    }

    @Test("mortar: '+' adds per component without the inset sign")
    func mortarPlus() {
        #expect(F.rendered("a.m_edges |=| b.m_edges + 10", .mortar) == [
            "a.top - b.top - 10 == 0", "a.leading - b.leading - 10 == 0",
            "a.bottom - b.bottom - 10 == 0", "a.trailing - b.trailing - 10 == 0"])
        #expect(F.rendered("a.m_sides |=| b.m_sides + (1, 2)", .mortar)
                == ["a.left - b.left - 1 == 0", "a.right - b.right - 2 == 0"])
    }

    @Test("mortar: '~' is the inset operator on edges (usual signs) and on size (subtracted)")
    func mortarInset() {
        #expect(F.rendered("a.m_edges |=| b.m_edges ~ (5, 10, 15, 20)", .mortar) == [
            "a.top - b.top - 5 == 0", "a.leading - b.leading - 10 == 0",
            "a.bottom - b.bottom + 15 == 0", "a.trailing - b.trailing + 20 == 0"])
        #expect(F.rendered("a.m_edges |=| b.m_edges ~ 8 ! high", .mortar).count == 4)
        #expect(F.rendered("a.m_size |=| b.m_size ~ (10, 20)", .mortar)
                == ["a.width - b.width + 10 == 0", "a.height - b.height + 20 == 0"])
        #expect(F.rendered("a.m_size |=| b.m_size * 2 ~ 4", .mortar)
                == ["a.width - 2*b.width + 4 == 0", "a.height - 2*b.height + 4 == 0"])
        #expect(F.rendered("a.width == b.width ~ 10", .mortar) == ["a.width - b.width + 10 == 0"])
        #expect(F.rendered("a == b ~ 3", .mortar) == [
            "a.top - b.top - 3 == 0", "a.leading - b.leading - 3 == 0",
            "a.bottom - b.bottom + 3 == 0", "a.trailing - b.trailing + 3 == 0"])
    }

    @Test("mortar: priorities are written with ! or @ (after an inset too)")
    func mortarPriority() {
        #expect(F.items(F.expr("a.width |=| 10 ! low", .mortar)).map(\.priority) == [250])
        #expect(F.items(F.expr("a.width |=| 10 @ 300", .mortar)).map(\.priority) == [300])
        #expect(F.items(F.expr("a.m_edges |=| b.m_edges ~ 8 @ 600", .mortar)).allSatisfy { $0.priority == 600 })
        #expect(F.items(F.expr("a.width == 10 ~ 750")).map(\.priority) == [750])
    }

    @Test("mortar: '~' problems", arguments: [
        ("a.width == 100 ~ low", "syntax", "inset operator"),
        ("a.m_center == b.m_center ~ 4", "invalid_inset", "center"),
        ("a.m_edges == b.m_edges ~ (1, 2, 3)", "component_mismatch", "(1, 2, 3)"),
        ("a.m_edges == b.m_edges ~ c.width", "invalid_inset", "number"),
        ("a.width == b.width ~ 1 ~ 2", "syntax", "only one"),
    ])
    func mortarInsetProblems(_ text: String, _ code: String, _ fragment: String) {
        let p = F.problems(F.expr(text, .mortar))
        #expect(p.map(\.code) == [code], "\(p)")
        #expect(p.first?.detail.contains(fragment) == true, "\(p)")
    }

    @Test("mortar: a position equal to a bare constant is measured from the superview", arguments: [
        ("a.m_left |=| 10", ["a.left - root.left - 10 == 0"]),
        ("a.m_top == 20", ["a.top - root.top - 20 == 0"]),
        ("label.m_bottom |=| 30", ["label.bottom - red.top - 30 == 0"]),
        ("label.centerX == 5", ["label.centerX - red.left - 5 == 0"]),
        ("label.centerYWithinMargins == 5", ["label.centerYWithinMargins - red.top - 5 == 0"]),
        ("a.trailing == 10", ["a.trailing - root.leading - 10 == 0"]),
        ("a.m_left * 2 == 10", ["2*a.left - 2*root.left - 10 == 0"]),
        ("root.left == 0", ["root.left == 0"]),
        ("a.width == 10", ["a.width - 10 == 0"]),
        ("a.m_cornerTL == (5, 6)", ["a.top - root.top - 5 == 0", "a.left - root.left - 6 == 0"]),
    ])
    func mortarPositions(_ text: String, _ expected: [String]) {
        #expect(F.rendered(text, .mortar) == expected)
    }

    @Test("mortar: the superview joins the item's views; other dialects leave the position alone")
    func mortarPositionViews() {
        #expect(F.items(F.expr("label.m_left |=| 10", .mortar)).first?.views == ["label", "red"])
        #expect(F.rendered("label.left == 10") == ["label.left - 10 == 0"])
        let ctx = F.context(.mortar)
        let items = F.items(F.expr("label.m_left |=| 10", .mortar))
        #expect(ConstraintRules.check(items, context: ctx).isEmpty)
    }
}
