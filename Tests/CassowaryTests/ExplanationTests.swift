import Testing
@testable import Cassowary

/// `Solver.explanation(of:)`: the constraints a value depends on, checked against what it claims.
/// A constraint is in the explanation exactly when moving its constant moves the value (that is
/// how the solver finds them: the constraint's marker in the value's row), so each scenario also
/// nudges every constraint's constant on a copy and compares.
@Suite("Explanation: the constraints a value depends on")
struct ExplanationTests {
    /// The constraints whose constant moves `e`'s value when nudged (an independent answer).
    static func moving(_ s: Solver, _ e: Expression, among ids: [ConstraintID]) -> [ConstraintID] {
        func value(_ s: Solver) -> Double { e.terms.reduce(e.constant) { $0 + $1.coefficient * s.value($1.variable) } }
        let before = value(s)
        return ids.filter { id in
            var t = s
            // Small enough that no inequality changes sides; large against rounding.
            try? t.setConstant(id, to: (t.constant(of: id) ?? 0) + 1e-3)
            t.updateValues()
            return abs(value(t) - before) > 1e-7
        }
    }

    @Test("a chain y = x + 5, x = 10 names both equalities, and neither an unrelated one nor a slack inequality")
    func chain() throws {
        var s = Solver()
        let x = s.addVariable(), y = s.addVariable(), w = s.addVariable()
        let c1 = try s.add(expr([(x, 1)], -10), .equal, priority: 1000).id
        let c2 = try s.add(expr([(y, 1), (x, -1)], -5), .equal, priority: 1000).id
        let c3 = try s.add(expr([(w, 1)], -3), .equal, priority: 1000).id
        let c4 = try s.add(expr([(y, 1)], -100), .lessOrEqual, priority: 1000).id  // y = 15: not tight
        s.updateValues()
        #expect(s.value(y) == 15)
        let e = expr([(y, 1)])
        #expect(s.explanation(of: e).constraints == [c1, c2])
        #expect(s.explanation(of: e).parameters.isEmpty)
        #expect(Self.moving(s, e, among: [c1, c2, c3, c4]) == [c1, c2])
        #expect(s.explanation(of: expr([(x, 1)])).constraints == [c1])
        // y - x is 5 whatever x is: only c2 decides it.
        #expect(s.explanation(of: expr([(y, 1), (x, -1)])).constraints == [c2])
    }

    @Test("a tight inequality decides the value and the optional constraint it beats does not")
    func tightInequality() throws {
        var s = Solver()
        let v = s.addVariable()
        let floor = try s.add(expr([(v, 1)], -20), .greaterOrEqual, priority: 1000).id
        let pull = try s.add(expr([(v, 1)]), .equal, priority: 500).id
        s.updateValues()
        #expect(s.value(v) == 20)
        let e = expr([(v, 1)])
        #expect(s.explanation(of: e).constraints == [floor])
        #expect(Self.moving(s, e, among: [floor, pull]) == [floor])
    }

    @Test("a satisfied optional constraint decides the value; a variable nothing holds is a parameter and moves")
    func optionalAndFree() throws {
        var s = Solver()
        let a = s.addVariable(), p = s.addVariable(), q = s.addVariable()
        let prefer = try s.add(expr([(a, 1)], -7), .equal, priority: 250).id
        try s.add(expr([(q, 1), (p, -1)], -1), .equal, priority: 1000)
        s.updateValues()
        #expect(s.explanation(of: expr([(a, 1)])).constraints == [prefer])
        #expect(s.freeDirections(moving: expr([(a, 1)])).isEmpty)
        // q = p + 1 with nothing else: one of them is a parameter of the other's row.
        #expect(!s.explanation(of: expr([(q, 1)])).parameters.isEmpty)
        #expect(!s.freeDirections(moving: expr([(q, 1)])).isEmpty)
        // q - p is fixed even though both move.
        #expect(s.freeDirections(moving: expr([(q, 1), (p, -1)])).isEmpty)
    }

    @Test("the query changes nothing: values and later edits are as without it")
    func readOnly() throws {
        var s = Solver()
        let x = s.addVariable(), y = s.addVariable()
        let c = try s.add(expr([(x, 1)], -10), .equal, priority: 1000).id
        try s.add(expr([(y, 1), (x, -2)]), .equal, priority: 1000)
        var plain = s
        _ = s.explanation(of: expr([(y, 1)]))
        try s.setConstant(c, to: -12)
        try plain.setConstant(c, to: -12)
        s.updateValues(); plain.updateValues()
        #expect(s.value(y) == 24 && plain.value(y) == 24)
    }
}
