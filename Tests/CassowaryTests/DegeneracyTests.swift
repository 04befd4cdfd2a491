import Testing
import TestSupport
@testable import Cassowary

@Suite("Degenerate rows (what decides blocked free directions)")
struct DegeneracyTests {
    @Test("a bound that pins a variable is degenerate; moving it away opens a free direction without a pivot")
    func pinnedThenFree() throws {
        var s = Solver()
        let w = s.addVariable()
        try s.add(Expression([Term(w)], constant: -100), .greaterOrEqual, priority: 1000)
        let max = try s.add(Expression([Term(w)], constant: -100), .lessOrEqual, priority: 1000)
        let pinned = s.degenerateRows()
        #expect(!pinned.isEmpty)
        #expect(s.degenerateRowsEqual(pinned))
        #expect(s.freeDirections().isEmpty)
        let pivots = s.statistics.pivots
        try s.setConstant(max.id, to: -120)
        #expect(s.statistics.pivots == pivots)
        #expect(!s.degenerateRowsEqual(pinned))
        #expect(s.degenerateRowsEqual(s.degenerateRows()))
        #expect(s.freeDirections().contains { $0.rate(w) != 0 })
    }

    @Test("after a baseline, the check reads only the rows constant changes shifted, and agrees with a full scan")
    func quickCheckAgrees() throws {
        var s = Solver()
        let w = s.addVariable()
        try s.add(Expression([Term(w)], constant: -100), .greaterOrEqual, priority: 1000)
        let max = try s.add(Expression([Term(w)], constant: -100), .lessOrEqual, priority: 1000)
        // Unrelated bounds that constant changes move around, degenerate or not.
        var bounds: [ConstraintID] = []
        for _ in 0..<6 {
            let v = s.addVariable()
            try s.add(Expression([Term(v)], constant: -50), .equal, priority: 1000)
            bounds.append(try s.add(Expression([Term(v)], constant: -40), .greaterOrEqual, priority: 1000).id)
        }
        var baseline = s.degenerateRows()
        s.markDegeneracyBaseline()
        #expect(s.degenerateRowsEqual(baseline))
        try s.setConstant(max.id, to: -120)          // the pinned width comes free: a row leaves the set
        #expect(!s.degenerateRowsEqual(baseline))
        baseline = s.degenerateRows()
        s.markDegeneracyBaseline()
        var rng = SeededGenerator(seed: 7)
        for step in 0..<200 {
            let id = bounds.randomElement(using: &rng)!
            // 50 makes the bound tight (degenerate), below it slack.
            try s.setConstant(id, to: -Double([50, 45, 40, 50].randomElement(using: &rng)!))
            let full = s.degenerateRows()
            #expect(s.degenerateRowsEqual(baseline) == (full == baseline), "step \(step)")
            baseline = full
            s.markDegeneracyBaseline()
        }
    }

    @Test("a free-directions stamp holds until a pivot or a change of the degenerate rows")
    func stamp() throws {
        var s = Solver()
        let w = s.addVariable()
        try s.add(Expression([Term(w)], constant: -100), .greaterOrEqual, priority: 1000)
        let max = try s.add(Expression([Term(w)], constant: -100), .lessOrEqual, priority: 1000)
        let first = s.stampFreeDirections()
        #expect(s.freeDirectionsUnchanged(since: first))
        // Kept, the stamp is the same one; the free directions are still none.
        #expect(s.stampFreeDirections(keeping: first) == first)
        #expect(s.freeDirections().isEmpty)
        // The bound comes free without a pivot: the degenerate rows differ, so must the answer.
        try s.setConstant(max.id, to: -120)
        #expect(!s.freeDirectionsUnchanged(since: first))
        let second = s.stampFreeDirections()
        #expect(second != first && s.freeDirectionsUnchanged(since: second))
        #expect(!s.freeDirections().isEmpty)
        // A pivot (a new constraint that moves w into a row) invalidates it as well.
        let x = s.addVariable()
        try s.add(Expression([Term(w), Term(x, -1)], constant: 0), .equal, priority: 1000)
        try s.add(Expression([Term(w)], constant: -110), .equal, priority: 500)
        #expect(s.statistics.pivots > second.pivots)
        #expect(!s.freeDirectionsUnchanged(since: second))
    }
}
