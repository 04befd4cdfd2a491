import Testing
@testable import LayoutModel

@Suite("Expression compiler: arithmetic, composites, implicit attributes")
struct ExpressionCompilerTests {
    typealias F = ExprFixture

    @Test("everything moves to the left side: b.top == a.bottom + (root.height - 100) / 4")
    func conformanceB4() throws {
        let item = try #require(F.items(F.expr("b.top == a.bottom + (root.height - 100) / 4")).first)
        #expect(item.terms == [LinearTerm(Anchor("b", .top), 1), LinearTerm(Anchor("a", .bottom), -1),
                               LinearTerm(Anchor("root", .height), -0.25)])
        #expect(item.constant == 25)
        #expect(item.relation == .equal && item.priority == 1000)
        #expect(item.views == ["b", "a", "root"] && item.firstView == "b")
    }

    @Test("the spec's and conformance cases' expressions", arguments: [
        ("red.top == (root.bottom - 100) * 0.5", ["red.top - 0.5*root.bottom + 50 == 0"]),
        ("a.width == 100", ["a.width - 100 == 0"]),
        ("b.width == root.width * 0.25 + 10", ["b.width - 0.25*root.width - 10 == 0"]),
        ("b.left >= a.right + 8", ["b.left - a.right - 8 >= 0"]),
        ("b.left <= a.right + 8", ["b.left - a.right - 8 <= 0"]),
        ("b.height == a.height * 2 - 10", ["b.height - 2*a.height + 10 == 0"]),
        ("a.width + b.width == root.width - 20", ["a.width + b.width - root.width + 20 == 0"]),
        ("label.firstBaseline == red.centerY", ["label.firstBaseline - red.centerY == 0"]),
        ("a.height == a.width * 0.5", ["a.height - 0.5*a.width == 0"]),
        ("a.centerX == root.centerX * 2", ["a.centerX - 2*root.centerX == 0"]),
        ("-a.left == -(b.left + 10)", ["-a.left + b.left + 10 == 0"]),
        ("2 * a.width / 4 == +b.width - -3", ["0.5*a.width - b.width - 3 == 0"]),
        ("a.width + a.width == b.width", ["2*a.width - b.width == 0"]),
        ("a.width == a.width * 0.5 + 10", ["0.5*a.width - 10 == 0"]),
        ("10 == a.width", ["-a.width + 10 == 0"]),
        ("a.width == 1.5e2", ["a.width - 150 == 0"]),
        ("a.width == .5", ["a.width - 0.5 == 0"]),
    ])
    func arithmetic(_ text: String, _ expected: [String]) {
        #expect(F.rendered(text) == expected)
    }

    @Test("every relation spelling", arguments: [
        ("==", Relation.equal), (">=", .greaterOrEqual), ("<=", .lessOrEqual),
        ("|=|", .equal), ("|>|", .greaterOrEqual), ("|<|", .lessOrEqual),
    ])
    func relations(_ spelling: String, _ relation: Relation) {
        #expect(F.items(F.expr("a.width \(spelling) b.width")).map(\.relation) == [relation])
    }

    @Test("priority markers ~ ! @ with numbers and every name", arguments: [
        ("a.width == 100 @ 751", 751.0), ("a.width == 200 ! 750", 750), ("a.width == 300 ~ 750", 750),
        ("a.top == root.top ~ low", 250), ("a.height == 50 ~ defaultHigh", 750), ("a.width == 1 ~ high", 750),
        ("a.width == 1 ~ required", 1000), ("a.width == 1 ~ medium", 500), ("a.width == 1 ~ defaultLow", 250),
        ("a.width == 1 ~ fittingSizeLevel", 50), ("a.width == 1 ~ fittingSize", 50),
        ("a.width == 1 ~ dragThatCanResizeWindow", 510), ("a.width == 1 ~ windowSizeStayPut", 500),
        ("a.width == 1 ~ dragThatCannotResizeWindow", 490), ("a.width == 1 ! .high", 750),
        ("a.width == 1@999.5", 999.5), ("a.width == 1", 1000),
    ])
    func priorities(_ text: String, _ priority: Double) {
        #expect(F.items(F.expr(text)).map(\.priority) == [priority])
    }

    @Test("without a marker the entry's priority field applies")
    func priorityField() {
        #expect(F.items(F.expr("a.width == 1", priorityField: 300)).map(\.priority) == [300])
    }

    @Test("composite sides expand component-wise; tuples are per-component constants", arguments: [
        ("red.size == (100, 100)", ["red.width - 100 == 0", "red.height - 100 == 0"]),
        ("a.cornerTL == root.cornerTL + (10, 20)", ["a.top - root.top - 10 == 0", "a.left - root.left - 20 == 0"]),
        ("b.m_center == root.centerAnchor", ["b.centerX - root.centerX == 0", "b.centerY - root.centerY == 0"]),
        ("b.sizeAnchor == a.size * 2", ["b.width - 2*a.width == 0", "b.height - 2*a.height == 0"]),
        ("b.size == a.size * (2, 3)", ["b.width - 2*a.width == 0", "b.height - 3*a.height == 0"]),
        ("c.frame == b.frame * 0.5 + (0, 200, 0, 0)", ["c.left - 0.5*b.left == 0", "c.top - 0.5*b.top - 200 == 0",
                                                       "c.width - 0.5*b.width == 0", "c.height - 0.5*b.height == 0"]),
        ("d.cornerBR == root.cornerBR - (10, 20)", ["d.bottom - root.bottom + 10 == 0", "d.right - root.right + 20 == 0"]),
        ("e.cornerTR == d.cornerBL", ["e.top - d.bottom == 0", "e.right - d.left == 0"]),
        ("a.size == (2, 3) * 10", ["a.width - 20 == 0", "a.height - 30 == 0"]),
    ])
    func composites(_ text: String, _ expected: [String]) {
        #expect(F.rendered(text) == expected)
    }

    @Test("inset composites: a constant is an inset wherever it stands", arguments: [
        ("a.edges == b.edges + 10", ["a.top - b.top - 10 == 0", "a.leading - b.leading - 10 == 0",
                                     "a.bottom - b.bottom + 10 == 0", "a.trailing - b.trailing + 10 == 0"]),
        ("a.edges + 10 == b.edges", ["a.top - b.top + 10 == 0", "a.leading - b.leading + 10 == 0",
                                     "a.bottom - b.bottom - 10 == 0", "a.trailing - b.trailing - 10 == 0"]),
        ("a.edges == b.edges + (5, 10, 15, 20)", ["a.top - b.top - 5 == 0", "a.leading - b.leading - 10 == 0",
                                                  "a.bottom - b.bottom + 15 == 0", "a.trailing - b.trailing + 20 == 0"]),
        ("a.edges == b.edges - 10", ["a.top - b.top + 10 == 0", "a.leading - b.leading + 10 == 0",
                                     "a.bottom - b.bottom - 10 == 0", "a.trailing - b.trailing - 10 == 0"]),
        ("a.edges == b.edges + (5 + 5) * 2", ["a.top - b.top - 20 == 0", "a.leading - b.leading - 20 == 0",
                                              "a.bottom - b.bottom + 20 == 0", "a.trailing - b.trailing + 20 == 0"]),
        ("a.edges == b.edges * 2", ["a.top - 2*b.top == 0", "a.leading - 2*b.leading == 0",
                                    "a.bottom - 2*b.bottom == 0", "a.trailing - 2*b.trailing == 0"]),
        ("a.horizontal == b.horizontal + (5, 15)", ["a.leading - b.leading - 5 == 0", "a.trailing - b.trailing + 15 == 0"]),
        ("a.horizontal == b.horizontal + (1, 5, 3, 15)", ["a.leading - b.leading - 5 == 0", "a.trailing - b.trailing + 15 == 0"]),
        ("a.vertical == b.caps + (1, 5, 3, 15)", ["a.top - b.top - 1 == 0", "a.bottom - b.bottom + 3 == 0"]),
        ("a.sides == b.sides + 30", ["a.left - b.left - 30 == 0", "a.right - b.right + 30 == 0"]),
        ("a.edges == b.edgesWithinMargins", ["a.top - b.topMargin == 0", "a.leading - b.leadingMargin == 0",
                                             "a.bottom - b.bottomMargin == 0", "a.trailing - b.trailingMargin == 0"]),
        ("a.centerWithinMargins == b.center", ["a.centerXWithinMargins - b.centerX == 0",
                                               "a.centerYWithinMargins - b.centerY == 0"]),
    ])
    func insets(_ text: String, _ expected: [String]) {
        #expect(F.rendered(text) == expected)
    }

    @Test("a bare view id takes the attribute the other side names, else edges", arguments: [
        ("a |=| c.m_height", ["a.height - c.height == 0"]),
        ("a.width == b", ["a.width - b.width == 0"]),
        ("a.top == b + 10", ["a.top - b.top - 10 == 0"]),
        ("a == b.size * 2", ["a.width - 2*b.width == 0", "a.height - 2*b.height == 0"]),
        ("a + 5 == b.cornerTL", ["a.top - b.top + 5 == 0", "a.left - b.left + 5 == 0"]),
        ("a == b", ["a.top - b.top == 0", "a.leading - b.leading == 0",
                    "a.bottom - b.bottom == 0", "a.trailing - b.trailing == 0"]),
        ("a == b + 10", ["a.top - b.top - 10 == 0", "a.leading - b.leading - 10 == 0",
                         "a.bottom - b.bottom + 10 == 0", "a.trailing - b.trailing + 10 == 0"]),
        ("a.width + b == c.height", ["a.width + b.height - c.height == 0"]),
        ("a + b.width == c", ["a.width + b.width - c.width == 0"]),
    ])
    func implicitAttributes(_ text: String, _ expected: [String]) {
        #expect(F.rendered(text) == expected)
    }

    @Test("views in order of appearance without duplicates; firstView is the first anchor's view")
    func viewsAndFirstView() {
        let items = F.items(F.expr("10 + a.width == b.width + a.height * 0 + root.width"))
        #expect(items.first?.views == ["a", "b", "root"])
        #expect(items.first?.firstView == "a")
        #expect(F.items(F.expr("b.width == a")).first?.views == ["b", "a"])
        #expect(F.items(F.expr("guide.top == a.top")).first?.firstView == nil)
        #expect(F.items(F.expr("guide.top == a.top")).first?.views == ["guide", "a"])
    }

    @Test("view ids with '-' or leading digits are matched against the document")
    func viewIDs() {
        #expect(F.rendered("my-view.width == a.width-10") == ["my-view.width - a.width + 10 == 0"])
        #expect(F.rendered("2col.width == a.width") == ["2col.width - a.width == 0"])
        #expect(F.rendered("10.width == 10") == ["10.width - 10 == 0"])
        #expect(F.rendered("a.width == b-10") == ["a.width - b.width + 10 == 0"])
        #expect(F.rendered("a.width==b.width*2") == ["a.width - 2*b.width == 0"])
    }

    @Test("problems point at the expression given by the caller")
    func pointer() {
        let p = F.problems(ExpressionCompiler.compile("a.width == zz.width", context: F.context(), pointer: "/expr"))
        #expect(p.map(\.pointer) == ["/expr"])
        #expect(p.map(\.code) == ["unknown_view"])
    }
}
