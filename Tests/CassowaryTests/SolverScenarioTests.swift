import Testing
@testable import Cassowary

/// Small helpers: `x == c`, `x - y == c`, … as solver expressions.
func expr(_ terms: [(Variable, Double)], _ constant: Double = 0) -> Expression {
    Expression(terms.map { Term($0.0, $0.1) }, constant: constant)
}

@Suite("Solver basics")
struct SolverBasicsTests {
    @Test("a required equality fixes a variable")
    func requiredEquality() throws {
        var s = Solver()
        let x = s.addVariable()
        try s.add(expr([(x, 1)], -10), .equal, priority: 1000)
        #expect(s.value(x) == 10)
    }

    @Test("a chain of differences propagates")
    func chain() throws {
        var s = Solver()
        let a = s.addVariable(), b = s.addVariable(), c = s.addVariable()
        try s.add(expr([(a, 1)], -5), .equal, priority: 1000)
        try s.add(expr([(b, 1), (a, -1)], -8), .equal, priority: 1000)      // b = a + 8
        try s.add(expr([(c, 1), (b, -2)], 1), .equal, priority: 1000)       // c = 2b - 1
        #expect(s.value(a) == 5)
        #expect(s.value(b) == 13)
        #expect(s.value(c) == 25)
    }

    @Test("inequalities bound an optional preference")
    func inequalities() throws {
        var s = Solver()
        let w = s.addVariable()
        try s.add(expr([(w, 1)], -30), .lessOrEqual, priority: 1000)        // w <= 30
        try s.add(expr([(w, 1)], -50), .equal, priority: 750)               // w == 50 @750
        #expect(abs(s.value(w) - 30) < 1e-9)
        try s.add(expr([(w, 1)], -40), .greaterOrEqual, priority: 1000, onConflict: .keepBroken)
        // w >= 40 conflicts with w <= 30: broken, pulls as hard as it can above 750.
        #expect(abs(s.value(w) - 30) < 1e-9)
        #expect(s.brokenConstraints.count == 1)
    }

    @Test("removing a constraint releases its variables")
    func removal() throws {
        var s = Solver()
        let w = s.addVariable()
        let pin = try s.add(expr([(w, 1)], -10), .equal, priority: 1000)
        try s.add(expr([(w, 1)], -20), .equal, priority: 500)
        #expect(s.value(w) == 10)
        try s.remove(pin.id)
        #expect(abs(s.value(w) - 20) < 1e-9)
        #expect(throws: SolverError.unknownConstraint) { try s.remove(pin.id) }
    }

    @Test("priorities outside (0, 1000] and non-finite numbers are refused")
    func invalidArguments() {
        var s = Solver()
        let x = s.addVariable()
        #expect(throws: SolverError.self) { try s.add(expr([(x, 1)]), .equal, priority: 0) }
        #expect(throws: SolverError.self) { try s.add(expr([(x, 1)]), .equal, priority: 1001) }
        #expect(throws: SolverError.self) { try s.add(expr([(x, 1)], .nan), .equal, priority: 10) }
    }

    @Test("an edit variable follows suggestions")
    func editVariable() throws {
        var s = Solver()
        let root = s.addVariable(), child = s.addVariable()
        try s.addEditVariable(root, priority: 1000)
        try s.add(expr([(child, 1), (root, -1)], 32), .equal, priority: 1000)   // child = root - 32
        try s.suggestValue(root, 390)
        #expect(s.value(child) == 358)
        try s.suggestValue(root, 1024)
        #expect(s.value(child) == 992)
        #expect(throws: SolverError.unknownEditVariable) { try s.suggestValue(child, 1) }
        #expect(throws: SolverError.duplicateEditVariable) { try s.addEditVariable(root, priority: 1000) }
    }
}

@Suite("Strict priority levels")
struct StrictLevelTests {
    @Test("one constraint at 751 beats three at 750")
    func higherLevelWins() throws {
        var s = Solver()
        let w = s.addVariable()
        try s.add(expr([(w, 1)], -100), .equal, priority: 751)
        for _ in 0..<3 { try s.add(expr([(w, 1)], -200), .equal, priority: 750) }
        #expect(abs(s.value(w) - 100) < 1e-9)
    }

    @Test("one constraint at 750 beats a thousand at 749")
    func manyLowerDoNotAddUp() throws {
        var s = Solver()
        let w = s.addVariable()
        for _ in 0..<1000 { try s.add(expr([(w, 1)], -200), .equal, priority: 749) }
        try s.add(expr([(w, 1)], -100), .equal, priority: 750)
        #expect(abs(s.value(w) - 100) < 1e-9)
    }

    @Test("within one level errors add up")
    func sameLevelSums() throws {
        var s = Solver()
        let w = s.addVariable()
        try s.add(expr([(w, 1)], -100), .equal, priority: 500)
        try s.add(expr([(w, 1)], -160), .equal, priority: 500)
        try s.add(expr([(w, 1)], -160), .equal, priority: 500)
        #expect(abs(s.value(w) - 160) < 1e-9)
    }

    @Test("levels far apart and close together are all exact")
    func manyLevels() throws {
        var s = Solver()
        var vars: [Variable] = []
        // v_i wants i*10 at level 2 + 2i, and v_i == v_{i-1} at 1 + 2i. From the top: v_49 = 490,
        // then each link (one level above the next pull) carries 490 down the chain. Weighted
        // strengths would let the many pulls below drag the chain apart.
        for i in 0..<50 {
            let v = s.addVariable()
            vars.append(v)
            try s.add(expr([(v, 1)], -Double(i * 10)), .equal, priority: Double(2 + 2 * i))
            if i > 0 { try s.add(expr([(v, 1), (vars[i - 1], -1)]), .equal, priority: Double(1 + 2 * i)) }
        }
        for v in vars { #expect(abs(s.value(v) - 490) < 1e-9) }
    }
}
