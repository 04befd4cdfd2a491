import Testing
import TestSupport
@testable import Cassowary

/// Which variables are ambiguous: `freeDirections` against an independent answer. A variable is
/// ambiguous when another optimal solution gives it another value; a constraint pulling it
/// (towards +10,000, then -10,000) at a priority below every other one moves it exactly then,
/// since the solver optimises priority levels lexicographically: the weakest level can only
/// choose among the optimal solutions of the others.
@Suite("Ambiguity: free directions against the weakest-preference answer")
struct AmbiguityTests {
    static func movedByWeakestPull(_ s: Solver, _ x: Variable) -> Bool {
        for target in [1e4, -1e4] {
            var t = s
            _ = try? t.add(expr([(x, 1)], -target), .equal, priority: 0.001, onConflict: .keepBroken)
            t.updateValues()
            if abs(t.value(x) - s.value(x)) > 1e-7 { return true }
        }
        return false
    }

    static func ambiguous(_ s: Solver, _ x: Variable) -> Bool {
        s.freeDirections().contains { $0.rate(x) != 0 }
    }

    @Test("variables that move only together at a degenerate vertex are ambiguous")
    func movesTogether() throws {
        var s = Solver()
        let x = s.addVariable(), y = s.addVariable(), z = s.addVariable(), w = s.addVariable()
        try s.add(expr([(x, 1), (y, 1)], -40), .lessOrEqual, priority: 500)
        try s.add(expr([(x, 1), (y, -1)], -40), .equal, priority: 1000)
        try s.add(expr([(z, 1)], -40), .lessOrEqual, priority: 1000)
        try s.add(expr([(x, 1), (z, -1)], 0), .greaterOrEqual, priority: 750)
        try s.add(expr([(w, 1)], -30), .equal, priority: 750)
        // x, y and z can all go down together (x - y stays 40, x stays >= z); w cannot move.
        for v in [x, y, z] {
            #expect(Self.movedByWeakestPull(s, v))
            #expect(Self.ambiguous(s, v))
        }
        #expect(!Self.movedByWeakestPull(s, w) && !Self.ambiguous(s, w))
        // One symbol at a time (the check before the cone) finds z only: x and y need z to move
        // with them.
        let single = StorageTests.referenceFreeDirections(s)
        #expect(single.contains { $0.rate(z) != 0 })
        #expect(!single.contains { $0.rate(x) != 0 } && !single.contains { $0.rate(y) != 0 })
    }

    @Test("on random small systems, a variable has a free direction exactly when the weakest pull moves it")
    func randomSystems() throws {
        var rng = SeededGenerator(seed: 7)
        var checked = 0, ambiguous = 0
        for round in 0..<4000 {
            var s = Solver()
            let n = 2 + Int(rng.next() % 6)
            let v = (0..<n).map { _ in s.addVariable() }
            for _ in 0..<(1 + Int(rng.next() % 10)) {
                let i = Int(rng.next() % UInt64(n)), j = Int(rng.next() % UInt64(n))
                let c = Double(Int(rng.next() % 5) * 10)
                let relation: Relation = [.equal, .greaterOrEqual, .lessOrEqual][Int(rng.next() % 3)]
                let priority: Double = [1000, 1000, 750, 500, 250][Int(rng.next() % 5)]
                let factor: Double = [1, -1, 0.5, 2, -2][Int(rng.next() % 5)]
                let e = i == j || rng.next() % 3 == 0 ? expr([(v[i], 1)], -c) : expr([(v[i], 1), (v[j], factor)], -c)
                _ = try? s.add(e, relation, priority: priority, onConflict: .keepBroken)
            }
            s.updateValues()
            let directions = s.freeDirections()
            for x in v {
                let expected = Self.movedByWeakestPull(s, x)
                #expect(directions.contains { $0.rate(x) != 0 } == expected, "round \(round), \(x)")
                checked += 1
                if expected { ambiguous += 1 }
            }
        }
        // Both answers occur often enough for the comparison to mean something.
        #expect(ambiguous > checked / 5 && ambiguous < checked * 4 / 5)
    }

    @Test("a cone cut by a row keeps the moves on its side and their combinations on its boundary")
    func coneCuts() {
        // Two symbols that only move up; x - y >= 0 keeps x alone and x and y together.
        var cone = FreeCone(restricted: [true, true])
        cone.cut([1, -1], equality: false)
        #expect(Set(cone.generators) == [[1, 0], [1, 1]])
        // x - y == 0 then keeps only the move of both together.
        cone.cut([1, -1], equality: true)
        #expect(cone.generators == [[1, 1]])
        // An external moves either way; y >= 0 is no constraint on it.
        var free = FreeCone(restricted: [false])
        free.cut([0], equality: false)
        #expect(Set(free.generators) == [[1], [-1]])
    }

    @Test("a cone too large to compute is reported, not computed")
    func coneLimits() {
        #expect(FreeCone(restricted: Array(repeating: true, count: FreeCone.symbolLimit + 1)).overflowed)
        var wide = FreeCone(restricted: Array(repeating: false, count: 40))
        #expect(!wide.overflowed && wide.generators.count == 80)
        // Every +e and -e is on either side of this row: 40 x 40 pairs, over the limit.
        wide.cut(Array(repeating: 1, count: 40), equality: false)
        #expect(wide.overflowed && wide.generators.count == 80)
    }
}
