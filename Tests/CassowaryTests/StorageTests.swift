import Testing
@testable import Cassowary
import TestSupport

/// The storage behind the 5,000-view speed-ups: unordered columns with slots, objective levels
/// that turn dense, the dual simplex's queue, rows solved in place.
@Suite("Tableau storage")
struct StorageTests {
    @Test("many labels flipping under a resized bound: exact values, intact invariants")
    func manyFlips() throws {
        // Like a grid's labels: each x_i wants its intrinsic size at 750 and must fit under the
        // width w (one required marker in every row); the level holds hundreds of errors, so its
        // objective is dense, and each resize pivots many times in the dual simplex.
        var s = Solver()
        let w = s.addVariable()
        let bound = try s.add(expr([(w, 1)], -100), .equal, priority: 1000)
        var xs: [Variable] = []
        var caps: [ConstraintID] = []
        for i in 0..<300 {
            let x = s.addVariable()
            xs.append(x)
            try s.add(expr([(x, 1)], -Double(20 + (i * 37) % 90)), .equal, priority: 750)
            caps.append(try s.add(expr([(x, 1), (w, -1)], Double(i % 7)), .lessOrEqual, priority: 1000).id)
        }
        #expect(s.invariantViolations().isEmpty)
        for width in [100.0, 40, 130, 25, 77, 200, 60] {
            let pivots = s.statistics.pivots
            try s.setConstant(bound.id, to: -width)
            s.updateValues()
            #expect(s.invariantViolations().isEmpty, "width \(width)")
            for (i, x) in xs.enumerated() {
                let expected = min(Double(20 + (i * 37) % 90), width - Double(i % 7))
                #expect(abs(s.value(x) - expected) < 1e-9, "width \(width) x\(i)")
            }
            if width == 130 { #expect(s.statistics.pivots > pivots) }
        }
        // Removing half the caps releases those labels to their intrinsic size.
        for i in stride(from: 0, to: 300, by: 2) { try s.remove(caps[i]) }
        s.updateValues()
        #expect(s.invariantViolations().isEmpty)
        for (i, x) in xs.enumerated() {
            let intrinsic = Double(20 + (i * 37) % 90)
            #expect(abs(s.value(x) - (i % 2 == 0 ? intrinsic : min(intrinsic, 60 - Double(i % 7)))) < 1e-9)
        }
    }

    /// Whether moving `s` in `direction` immediately makes a restricted basic row negative (or
    /// moves a basic dummy), as first written: a walk of the column per direction, each
    /// restricted row's coefficient read before its constant.
    static func referenceIsBlocked(_ solver: Solver, _ s: Int32, direction: Double) -> Bool {
        for b in solver.tableau.slots[Int(s)].column {
            let bi = Int(b)
            switch solver.tableau.slots[bi].kind {
            case .external: continue
            case .dummy: return true
            case .slack, .error:
                let c = solver.tableau.slots[bi].row.coefficient(s) * direction
                if c < 0 && solver.tableau.slots[bi].row.constant < 1e-9 { return true }
            }
        }
        return false
    }

    /// `freeDirections` as it was written first: `lexSign` asked for each symbol.
    static func referenceFreeDirections(_ s: Solver) -> [FreeDirection] {
        var out: [FreeDirection] = []
        for i in s.tableau.slots.indices where !s.tableau.slots[i].isBasic {
            let kind = s.tableau.slots[i].kind
            let sym = Int32(i)
            if kind == .dummy || s.lexSign(sym) != 0 || (kind != .external && s.tableau.owner[i] < 0) { continue }
            let up = referenceIsBlocked(s, sym, direction: 1)
            let down = kind == .external ? referenceIsBlocked(s, sym, direction: -1) : true
            let (oneUp, oneDown) = s.blocked(sym, bothWays: kind == .external)
            #expect(oneUp == up && oneDown == down, "one walk of the column answers as one walk per direction")
            if up && down { continue }
            let rates = s.rates(of: sym)
            if !rates.isEmpty { out.append(FreeDirection(rates: rates)) }
        }
        return out
    }

    @Test("free directions from one pass over the objectives equal asking each symbol's reduced cost")
    func freeDirectionsOnePass() throws {
        var rng = SeededGenerator(seed: 21)
        for round in 0..<6 {
            var s = Solver()
            let w = s.addVariable()
            try s.add(expr([(w, 1)], -100), .equal, priority: 1000)
            var xs: [Variable] = []
            // Enough optional constraints at one level for its objective to turn dense, some
            // variables left free (ambiguous), some pinned.
            for i in 0..<(round.isMultiple(of: 2) ? 40 : 300) {
                let x = s.addVariable()
                xs.append(x)
                if Int.random(in: 0..<4, using: &rng) > 0 {
                    try s.add(expr([(x, 1), (w, -1)], Double(i % 5)), .lessOrEqual, priority: 1000)
                }
                if Int.random(in: 0..<3, using: &rng) > 0 {
                    try s.add(expr([(x, 1)], -Double(10 + i % 40)), .equal,
                              priority: [250.0, 500, 750].randomElement(using: &rng)!)
                }
            }
            for _ in 0..<3 {
                #expect(s.freeDirections() == Self.referenceFreeDirections(s), "round \(round)")
                let x = xs.randomElement(using: &rng)!
                try s.add(expr([(x, 1), (w, -0.5)], 0), .greaterOrEqual, priority: 1000)
            }
        }
    }

    @Test("a dense objective level computes exactly what a sparse row does")
    func objectiveForms() {
        var rng = SeededGenerator(seed: 7)
        var objective = Objective()
        var reference = Row()
        for step in 0..<3000 {
            let s = Int32(Int.random(in: 0..<400, using: &rng))
            switch Int.random(in: 0..<10, using: &rng) {
            case 0:
                #expect(objective.remove(s).bitPattern == reference.remove(s).bitPattern, "step \(step)")
            case 1...3:
                var row = Row(constant: 1)
                for t in Set((0..<5).map { _ in Int32(Int.random(in: 0..<400, using: &rng)) }).sorted() {
                    row.add(t, Double(Int.random(in: -4...4, using: &rng)) / 3)
                }
                let c = [1.0, -1, 0.5, 1e-10][Int.random(in: 0..<4, using: &rng)]
                objective.add(row, times: c)
                for cell in row.cells { reference.add(cell.symbol, c * cell.coefficient) }
            default:
                let c = Double(Int.random(in: -6...6, using: &rng)) / 7
                objective.add(s, c)
                reference.add(s, c)
            }
        }
        #expect(objective.isDense)
        #expect(objective.symbols == reference.symbols)
        for s in Int32(0)..<400 {
            #expect(objective.coefficient(s).bitPattern == reference.coefficient(s).bitPattern)
        }
    }

    @Test("the dual simplex's queue pops highest first, whatever the push order")
    func rowQueue() {
        var q = RowQueue()
        for s: Int32 in [5, 1, 9, 9, 3, 12, 0, 7] { q.push(s) }
        var out: [Int32] = []
        while let s = q.pop() { out.append(s) }
        #expect(out == [12, 9, 9, 7, 5, 3, 1, 0])
    }

    @Test("solving a row in place equals adding the basic symbol and solving")
    func solveInPlace() {
        for lhs: Int32 in [0, 4, 7, 20] {
            var row = Row(constant: 3)
            for (s, c) in [(2, 1.5), (5, -2.0), (9, 0.25), (11, 4.0)] { row.add(Int32(s), c) }
            var a = row, b = row
            a.solve(lhs, for: 9)
            b.add(lhs, -1)
            b.solve(for: 9)
            #expect(a.symbols == b.symbols)
            #expect(a.cells.map(\.coefficient.bitPattern) == b.cells.map(\.coefficient.bitPattern))
            #expect(a.constant.bitPattern == b.constant.bitPattern)
        }
    }
}
