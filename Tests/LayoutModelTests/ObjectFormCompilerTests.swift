import JSON
import Testing
@testable import LayoutModel

@Suite("Object form compiler")
struct ObjectFormCompilerTests {
    typealias F = ExprFixture

    @Test("first REL multiplier·second + constant becomes terms [first: 1, second: -m], constant -c")
    func specExample() throws {
        let items = F.items(F.object(F.entry("red.leading", "==", "root.leading", constant: .number(100),
                                             multiplier: .number(1))))
        #expect(items.map(F.render) == ["red.leading - root.leading - 100 == 0"])
        let item = try #require(items.first)
        #expect(item.terms == [LinearTerm(Anchor("red", .leading), 1), LinearTerm(Anchor("root", .leading), -1)])
        #expect(item.constant == -100)
        #expect(item.priority == 1000)
        #expect(item.views == ["red", "root"])
        #expect(item.firstView == "red")
    }

    @Test("every relation spelling, and == by default", arguments: [
        ("==", Relation.equal), (">=", .greaterOrEqual), ("<=", .lessOrEqual), ("equal", .equal),
        ("greaterThanOrEqual", .greaterOrEqual), ("lessThanOrEqual", .lessOrEqual),
    ])
    func relations(_ spelling: String, _ relation: Relation) {
        #expect(F.items(F.object(F.entry("a.width", spelling, "b.width"))).map(\.relation) == [relation])
    }

    @Test("relation defaults to ==, multiplier to 1, constant to 0")
    func defaults() {
        #expect(F.renderedObject(F.entry("a.width", nil, "b.width")) == ["a.width - b.width == 0"])
    }

    @Test("without second the constant alone is the right side (the multiplier is ignored)")
    func noSecond() {
        #expect(F.renderedObject(F.entry("a.width", ">=", nil, constant: .number(100), multiplier: .number(3)))
                == ["a.width - 100 >= 0"])
    }

    @Test("a multiplier scales second; an array gives one per component")
    func multipliers() {
        #expect(F.renderedObject(F.entry("b.width", "==", "root.width", constant: .number(10),
                                         multiplier: .number(0.25)))
                == ["b.width - 0.25*root.width - 10 == 0"])
        #expect(F.renderedObject(F.entry("b.size", "==", "a.size", multiplier: F.numbers([2, 3])))
                == ["b.width - 2*a.width == 0", "b.height - 3*a.height == 0"])
    }

    @Test("edges with a number: bottom and trailing get the negated inset, relation unchanged")
    func edgesNumber() {
        #expect(F.renderedObject(F.entry("a.edges", ">=", "root.edges", constant: .number(10))) == [
            "a.top - root.top - 10 >= 0", "a.leading - root.leading - 10 >= 0",
            "a.bottom - root.bottom + 10 >= 0", "a.trailing - root.trailing + 10 >= 0",
        ])
    }

    @Test("edges with [top, left, bottom, right] and with an object (missing keys 0)")
    func edgesForms() {
        #expect(F.renderedObject(F.entry("b.edgeAnchor", "==", "root.edges", constant: F.numbers([10, 20, 30, 40]))) == [
            "b.top - root.top - 10 == 0", "b.leading - root.leading - 20 == 0",
            "b.bottom - root.bottom + 30 == 0", "b.trailing - root.trailing + 40 == 0",
        ])
        let keyed = JSONValue.object(F.object(["right": .number(4), "top": .number(1)]))
        #expect(F.renderedObject(F.entry("b.edges", "==", "root.edges", constant: keyed)) == [
            "b.top - root.top - 1 == 0", "b.leading - root.leading == 0",
            "b.bottom - root.bottom == 0", "b.trailing - root.trailing + 4 == 0",
        ])
    }

    @Test("horizontal/sides use left and right, vertical/caps top and bottom, of every form")
    func twoComponentInsets() {
        let lr = JSONValue.object(F.object(["top": .number(0), "left": .number(5), "bottom": .number(0), "right": .number(15)]))
        #expect(F.renderedObject(F.entry("c.horizontal", "==", "root.horizontal", constant: lr))
                == ["c.leading - root.leading - 5 == 0", "c.trailing - root.trailing + 15 == 0"])
        #expect(F.renderedObject(F.entry("c.horizontal", "==", "root.horizontal", constant: F.numbers([5, 15])))
                == ["c.leading - root.leading - 5 == 0", "c.trailing - root.trailing + 15 == 0"])
        #expect(F.renderedObject(F.entry("c.vertical", "==", "root.vertical", constant: F.numbers([100, 0, 250, 0])))
                == ["c.top - root.top - 100 == 0", "c.bottom - root.bottom + 250 == 0"])
        #expect(F.renderedObject(F.entry("d.sides", "==", "root.sides", constant: .number(30)))
                == ["d.left - root.left - 30 == 0", "d.right - root.right + 30 == 0"])
        let tb = JSONValue.object(F.object(["top": .number(200), "bottom": .number(150)]))
        #expect(F.renderedObject(F.entry("d.caps", "==", "root.caps", constant: tb))
                == ["d.top - root.top - 200 == 0", "d.bottom - root.bottom + 150 == 0"])
    }

    @Test("size, center, corners, frame and the margin composites take their constant forms")
    func otherComposites() {
        #expect(F.renderedObject(F.entry("e.size", constant: .number(40))) == ["e.width - 40 == 0", "e.height - 40 == 0"])
        #expect(F.renderedObject(F.entry("e.size", constant: .object(F.object(["width": .number(80), "height": .number(50)]))))
                == ["e.width - 80 == 0", "e.height - 50 == 0"])
        #expect(F.renderedObject(F.entry("b.center", "==", "root.center", constant: F.numbers([3, 4])))
                == ["b.centerX - root.centerX - 3 == 0", "b.centerY - root.centerY - 4 == 0"])
        #expect(F.renderedObject(F.entry("a.cornerTL", "==", "root.cornerTL", constant: F.numbers([10, 20])))
                == ["a.top - root.top - 10 == 0", "a.left - root.left - 20 == 0"])
        #expect(F.renderedObject(F.entry("e.cornerTR", "==", "d.cornerBL", constant: .number(0)))
                == ["e.top - d.bottom == 0", "e.right - d.left == 0"])
        #expect(F.renderedObject(F.entry("c.frame", "==", "b.frame", constant: F.numbers([0, 200, 0, 0]),
                                         multiplier: .number(0.5))) == [
            "c.left - 0.5*b.left == 0", "c.top - 0.5*b.top - 200 == 0",
            "c.width - 0.5*b.width == 0", "c.height - 0.5*b.height == 0",
        ])
        #expect(F.renderedObject(F.entry("c.edgesWithinMargins", "==", "a.edges", constant: .number(5))) == [
            "c.topMargin - a.top - 5 == 0", "c.leadingMargin - a.leading - 5 == 0",
            "c.bottomMargin - a.bottom + 5 == 0", "c.trailingMargin - a.trailing + 5 == 0",
        ])
        #expect(F.renderedObject(F.entry("d.centerWithinMargins", "==", "c.center"))
                == ["d.centerXWithinMargins - c.centerX == 0", "d.centerYWithinMargins - c.centerY == 0"])
    }

    @Test("items take the context's default priority; common fields are ignored")
    func priorityAndCommonFields() {
        var e = F.entry("a.width", "==", "b.width")
        e["priority"] = .number(10); e["activation"] = .string("always"); e["group"] = .string("g")
        e["identifier"] = .string("i"); e["active"] = .bool(true); e["dialect"] = .string("mag")
        e["id"] = .string("c1")
        #expect(F.items(F.object(e, priorityField: 750)).map(\.priority) == [750])
        #expect(F.items(F.object(e)).map(\.priority) == [1000])
    }

    @Test("a guide as first item has no first view; views are deduplicated")
    func firstView() {
        let items = F.items(F.object(F.entry("guide.edges", "==", "red.edges")))
        #expect(items.count == 4)
        #expect(items.allSatisfy { $0.firstView == nil && $0.views == ["guide", "red"] })
        #expect(F.items(F.object(F.entry("a.height", "==", "a.width"))).first?.views == ["a"])
    }

    @Test("in the mortar dialect a position equal to a constant is measured from the superview")
    func mortarPosition() {
        #expect(F.renderedObject(F.entry("label.left", constant: .number(10)), .mortar)
                == ["label.left - red.left - 10 == 0"])
        #expect(F.renderedObject(F.entry("label.left", constant: .number(10))) == ["label.left - 10 == 0"])
    }

    @Test("problems point at the field and carry a stable code", arguments: [
        (F.object(["relation": .string("==")]), "/first", "missing_field"),
        (F.object(["first": .number(3)]), "/first", "invalid_type"),
        (F.entry("red"), "/first", "invalid_anchor"),
        (F.entry("zz.top"), "/first", "unknown_view"),
        (F.entry("a.middle"), "/first", "unknown_attribute"),
        (F.entry("a.width", "=", "b.width"), "/relation", "invalid_relation"),
        (F.entry("a.width", "|=|", "b.width"), "/relation", "invalid_relation"),
        (F.entry("a.width", "==", "b"), "/second", "invalid_anchor"),
        (F.entry("a.width", "==", "zz.width"), "/second", "unknown_view"),
        (F.entry("a.size", constant: F.numbers([1, 2, 3])), "/constant", "invalid_constant"),
        (F.entry("a.size", constant: .object(F.object(["w": .number(1)]))), "/constant", "invalid_constant"),
        (F.entry("a.width", constant: F.numbers([1, 2])), "/constant", "invalid_constant"),
        (F.entry("a.edges", constant: .string("10")), "/constant", "invalid_constant"),
        (F.entry("a.size", "==", "b.size", multiplier: F.numbers([1, 2, 3])), "/multiplier", "invalid_multiplier"),
        (F.entry("a.width", "==", "b.width", multiplier: .string("2")), "/multiplier", "invalid_multiplier"),
        (F.entry("a.size", "==", "b.center"), "/second", "component_mismatch"),
        (F.entry("a.edges", "==", "b.width"), "/second", "component_mismatch"),
        (F.entry("a.width", "==", "b.size"), "/second", "component_mismatch"),
        (F.entry("a.edges", "==", "b.frame"), "/second", "component_mismatch"),
        (F.entry("a.width", constant: .number(1e9)), "/constant", "number_out_of_range"),
        (F.entry("a.edges", constant: F.numbers([1, 2, 3e8, 4])), "/constant/2", "number_out_of_range"),
        (F.entry("a.edges", constant: .object(F.object(["top": .number(-2e7)]))), "/constant/top", "number_out_of_range"),
        (F.entry("a.width", "==", "b.width", multiplier: .number(1e8)), "/multiplier", "number_out_of_range"),
        (F.entry("a.size", "==", "b.size", multiplier: F.numbers([1, -1e8])), "/multiplier/1", "number_out_of_range"),
    ])
    func problems(_ entry: JSONObject, _ pointer: String, _ code: String) {
        let problems = F.problems(F.object(entry))
        #expect(problems.map(\.code) == [code])
        #expect(problems.map(\.pointer) == [pointer])
    }

    @Test("several problems of one entry are reported together")
    func severalProblems() {
        let p = F.problems(F.object(F.entry("zz.top", "~", "yy.top")))
        #expect(Set(p.map(\.pointer)) == ["/first", "/second", "/relation"])
    }
}
