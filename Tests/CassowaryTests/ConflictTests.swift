import Testing
@testable import Cassowary

@Suite("Required conflicts")
struct ConflictTests {
    @Test("a conflicting required equality is kept broken and names what it conflicts with")
    func brokenNamesConflicts() throws {
        var s = Solver()
        let x = s.addVariable(), w = s.addVariable()
        let left = try s.add(expr([(x, 1)], -10), .equal, priority: 1000)
        let w1 = try s.add(expr([(w, 1)], -100), .equal, priority: 1000)
        let w2 = try s.add(expr([(w, 1)], -200), .equal, priority: 1000)
        #expect(w2.isBroken)
        #expect(w2.conflicts == [w1.id])
        #expect(!s.isBroken(left.id) && s.isBroken(w2.id))
        #expect(s.value(w) == 100)
        // right = x + w == 100 conflicts with left and w1.
        let r = try s.add(expr([(x, 1), (w, 1)], -100), .equal, priority: 1000)
        #expect(r.isBroken)
        #expect(r.conflicts == [left.id, w1.id])
    }

    @Test("a conflicting required inequality names the inequality it fights")
    func inequalityConflict() throws {
        var s = Solver()
        let h = s.addVariable()
        let min = try s.add(expr([(h, 1)], -50), .greaterOrEqual, priority: 1000)
        try s.add(expr([(h, 1)], -45), .equal, priority: 500)
        let max = try s.add(expr([(h, 1)], -40), .lessOrEqual, priority: 1000)
        #expect(max.isBroken)
        #expect(max.conflicts == [min.id])
        #expect(abs(s.value(h) - 50) < 1e-9)
    }

    @Test("a broken constraint still pulls harder than any optional one")
    func brokenPulls() throws {
        var s = Solver()
        let w = s.addVariable()
        try s.add(expr([(w, 1)], -100), .greaterOrEqual, priority: 1000)
        let max = try s.add(expr([(w, 1)], -50), .lessOrEqual, priority: 1000)
        try s.add(expr([(w, 1)], -300), .equal, priority: 999)
        #expect(max.isBroken)
        #expect(abs(s.value(w) - 100) < 1e-9)
    }

    @Test("rejecting a conflict leaves the solver exactly as before")
    func rejectLeavesStateUnchanged() throws {
        var s = Solver()
        let x = s.addVariable(), y = s.addVariable()
        try s.add(expr([(x, 1)], -10), .greaterOrEqual, priority: 1000)
        try s.add(expr([(y, 1), (x, -1)], -5), .greaterOrEqual, priority: 1000)
        try s.add(expr([(y, 1)], -3), .equal, priority: 250)
        let before = s
        #expect(throws: SolverError.unsatisfiable(conflicts: [ConstraintID(0), ConstraintID(1)])) {
            try s.add(expr([(y, 1)], -12), .lessOrEqual, priority: 1000, onConflict: .reject)
        }
        #expect(s.value(x).bitPattern == before.value(x).bitPattern)
        #expect(s.value(y).bitPattern == before.value(y).bitPattern)
        #expect(s.variableCount == before.variableCount)
        #expect(s.currentStatistics == before.currentStatistics)
        // And it still works afterwards.
        try s.add(expr([(y, 1)], -20), .lessOrEqual, priority: 1000, onConflict: .reject)
        #expect(abs(s.value(y) - 15) < 1e-9)
    }

    @Test("a redundant required equality is not a conflict")
    func redundantIsFine() throws {
        var s = Solver()
        let a = s.addVariable(), b = s.addVariable()
        try s.add(expr([(a, 1)], -10), .equal, priority: 1000)
        try s.add(expr([(b, 1), (a, -1)], -5), .equal, priority: 1000)
        let again = try s.add(expr([(b, 1)], -15), .equal, priority: 1000)
        #expect(!again.isBroken)
        #expect(s.value(b) == 15)
        try s.remove(again.id)
        #expect(s.value(b) == 15)
    }

    @Test("a constant change that makes required constraints infeasible is refused and undone")
    func constantChangeConflict() throws {
        var s = Solver()
        let w = s.addVariable()
        try s.add(expr([(w, 1)], -100), .greaterOrEqual, priority: 1000)
        let max = try s.add(expr([(w, 1)], -200), .lessOrEqual, priority: 1000)
        try s.add(expr([(w, 1)], -150), .equal, priority: 500)
        #expect(abs(s.value(w) - 150) < 1e-9)
        #expect(throws: SolverError.self) { try s.setConstant(max.id, to: -50) }
        #expect(s.constant(of: max.id) == -200)
        #expect(abs(s.value(w) - 150) < 1e-9)
        try s.setConstant(max.id, to: -120)
        #expect(abs(s.value(w) - 120) < 1e-9)
    }
}
