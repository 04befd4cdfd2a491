// The primal simplex over the lexicographic objective, and the dual simplex for constant changes.

extension Solver {
    /// Sign of the reduced-cost vector of `s`: the first level where it is not zero decides.
    @inline(__always)
    func lexSign(_ s: Int32) -> Int {
        for k in objectives.rows.indices {
            let c = objectives.rows[k].coefficient(s)
            if c < -Tolerance.zero { return -1 }
            if c > Tolerance.zero { return 1 }
        }
        return 0
    }

    /// Bland's rule: the lowest-numbered pivotable symbol with a negative reduced cost. It cannot
    /// cycle on degenerate systems, and layouts rarely need many pivots per operation.
    mutating func pickEntering() -> Int32? {
        var best: Int32 = -1
        var i = 0
        while i < simplex.candidates.count {
            let s = simplex.candidates[i]
            let si = Int(s)
            if tableau.slots[si].isBasic || !tableau.slots[si].kind.isPivotable || lexSign(s) >= 0 {
                simplex.isCandidate[si] = false
                simplex.candidates.swapAt(i, simplex.candidates.count - 1)
                simplex.candidates.removeLast()
                continue
            }
            if best < 0 || s < best { best = s }
            i += 1
        }
        return best >= 0 ? best : nil
    }

    /// The primal simplex: minimises the objective levels lexicographically.
    mutating func optimize() {
        while let entering = pickEntering() {
            var leaving: Int32 = -1
            var best = Double.infinity
            for b in tableau.slots[Int(entering)].column {
                let bi = Int(b)
                let kind = tableau.slots[bi].kind
                guard kind.isRestricted else { continue }
                let c = tableau.slots[bi].row.coefficient(entering)
                // A basic dummy (a redundant required equality) must stay exactly 0: it blocks
                // the entering symbol in either direction.
                if c < 0 || (kind == .dummy && c != 0) {
                    let r = abs(tableau.slots[bi].row.constant / c)
                    // Columns are unordered: ties go to the lowest symbol explicitly (Bland).
                    if r < best || (r == best && b < leaving) { best = r; leaving = b }
                }
            }
            if leaving < 0 {
                // Every level is a sum of non-negative errors, so no direction is unbounded in
                // exact arithmetic; a float-noise direction is dropped instead of thrown.
                simplex.isCandidate[Int(entering)] = false
                simplex.candidates.removeAll { $0 == entering }
                continue
            }
            pivot(entering, leaving)
        }
    }

    /// Exchanges a restricted `entering` symbol (non-basic) with `leaving` (basic).
    ///
    /// The row keeps its cells, so instead of leaving every column and joining it again it is
    /// renamed in place: each column entry that said `leaving` now says `entering` (one write a
    /// cell; rows of a 5,000-view grid's labels hold ~20 markers, and a resize pivots hundreds of
    /// times). Only the entering symbol's cell leaves and the leaving symbol's cell joins.
    mutating func pivot(_ entering: Int32, _ leaving: Int32) {
        let li = Int(leaving), ei = Int(entering)
        structureChanged()
        var row = Row()
        swap(&row, &tableau.slots[li].row)
        setBasic(li, false)
        if tableau.slots[li].kind == .external { markDirty(leaving) }
        let j = row.search(entering)
        let slot = row.cells[j].slot
        row.solve(leaving, for: entering)
        tableau.slots.withUnsafeMutableBufferPointer { slots in
            for cell in row.cells where cell.slot >= 0 { slots[Int(cell.symbol)].column[Int(cell.slot)] = entering }
        }
        let jl = row.search(leaving)
        row.cells[jl].slot = Int32(tableau.slots[li].column.count)
        tableau.slots[li].column.append(entering)
        tableau.slots[ei].row = row
        setBasic(ei, true)
        // Entering's own cell is gone from the row; `unindex` may move another row's entry, which
        // needs that row in place (hence after the install).
        unindex(entering, slot: slot)
        substitute(entering, row)
        if tableau.slots[ei].row.constant < -Tolerance.zero { pushInfeasible(entering) }
        counters.pivots += 1
    }

    /// The dual simplex: restores feasibility after constants changed, keeping optimality.
    /// - Returns: nil on success, else the basic symbol of a row that cannot be made feasible.
    mutating func dualOptimize() -> Int32? {
        while let leaving = simplex.infeasible.pop() {
            let li = Int(leaving)
            guard tableau.slots[li].isBasic, tableau.slots[li].kind.isRestricted, tableau.slots[li].row.constant < -Tolerance.zero else { continue }
            var entering: Int32 = -1
            var enteringCoefficient = 0.0
            let row = tableau.slots[li].row
            for cell in row.cells {
                let s = cell.symbol
                let c = cell.coefficient
                guard c > Tolerance.zero, tableau.slots[Int(s)].kind.isPivotable else { continue }
                if entering < 0 || ratioLess(s, c, entering, enteringCoefficient) {
                    entering = s
                    enteringCoefficient = c
                }
            }
            if entering < 0 {
                simplex.infeasible.removeAll()
                return leaving
            }
            pivot(entering, leaving)
        }
        return nil
    }

    mutating func collectInfeasibleRows() {
        simplex.infeasible.removeAll()
        for i in tableau.slots.indices where tableau.slots[i].isBasic && tableau.slots[i].kind.isRestricted && tableau.slots[i].kind != .dummy {
            if tableau.slots[i].row.constant < -Tolerance.zero { pushInfeasible(Int32(i)) }
        }
    }

    /// Lexicographic comparison of reduced-cost ratios d(a)/ca < d(b)/cb; ties by symbol number.
    func ratioLess(_ a: Int32, _ ca: Double, _ b: Int32, _ cb: Double) -> Bool {
        for k in objectives.rows.indices {
            let ra = objectives.rows[k].coefficient(a) / ca
            let rb = objectives.rows[k].coefficient(b) / cb
            if ra < rb { return true }
            if ra > rb { return false }
        }
        return a < b
    }
}
