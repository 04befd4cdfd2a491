// Plans for constant changes that repeat: a root's width and height, an edit variable.
//
// A constant change moves the constant of every row holding the constraint's marker, and then
// the value of every external row that holds the marker or references a row whose value moved.
// The general path reads each of those rows' cells (one allocation each, under load nearly all
// cache misses). As long as no row changes its cells and no symbol enters or leaves the basis,
// the effect of moving the marker by `shift` is linear and fixed: each row's constant moves by
// (its coefficient of the marker) × shift, each external's value by (its rate) × shift. A plan
// keeps those coefficients and rates side by side, so a repeated change reads two short arrays,
// the rows' slots and the values, not the rows' cells.
//
// Exactness: a planned change adds `rate · shift` to a value where the sweep would recompute
// `constant + Σ coefficient · value`: the two differ by rounding (the row constants themselves
// are already moved incrementally by every constant change, planned or not). Values stay the
// same for the same sequence of operations in every process; a later sweep over a row recomputes
// it from its cells.

extension Solver {
    /// Plans kept at most: a root's width and height, a few edit variables.
    static let shiftPlanLimit = 4

    /// Records that a row's cells or the basis changed: every plan is out of date.
    @inline(__always)
    mutating func structureChanged() {
        degeneracy.unknown = true
        plans.structureVersion &+= 1
    }

    /// The plan for `marker` (a non-basic symbol), made now if there is none for the current
    /// structure; older plans are dropped beyond `shiftPlanLimit`, first made first dropped.
    mutating func shiftPlan(for marker: Int32) -> Int {
        if plans.version != plans.structureVersion {
            plans.list.removeAll(keepingCapacity: true)
            plans.version = plans.structureVersion
        }
        if let k = plans.list.firstIndex(where: { $0.marker == marker }) { return k }
        if plans.list.count >= Self.shiftPlanLimit { plans.list.removeFirst() }
        plans.list.append(makeShiftPlan(marker))
        counters.shiftPlansMade += 1
        return plans.list.count - 1
    }

    /// The marker's rows with their coefficients, and the rates of the externals that depend on
    /// it, computed as the value sweep computes values: in stamp order (a row references only
    /// rows with an older stamp; reduced rows, stamp 0, reference none), through the same marks
    /// (`cache.pendingStamps`, left clear), with each rate kept in the dense `scratch.expansion` scratch (left
    /// zero). Made once per structure, so it costs about one sweep.
    private mutating func makeShiftPlan(_ marker: Int32) -> ShiftPlan {
        growExpansion()
        growPendingStamps()
        var rows: [Cell] = []
        var rates: [Cell] = []
        rows.reserveCapacity(tableau.slots[Int(marker)].column.count)
        /// Marks the external rows that reference `x` and were installed after stamp `k + 1`.
        func markDependents(of x: Int32, after k: Int) {
            for y in tableau.slots[Int(x)].column {
                let j = Int(tableau.slots[Int(y)].stamp) - 1
                if j > k { markPending(j) }
            }
        }
        for b in tableau.slots[Int(marker)].column {
            let bi = Int(b)
            let c = tableau.slots[bi].row.coefficient(marker)
            rows.append(Cell(b, c))
            guard tableau.slots[bi].kind == .external else { continue }
            if tableau.slots[bi].stamp == 0 {
                // A reduced row: its rate is its coefficient (it references nothing).
                scratch.expansion[bi] = c
                rates.append(Cell(b, c))
                markDependents(of: b, after: -1)
            } else {
                markPending(Int(tableau.slots[bi].stamp) - 1)
            }
        }
        // From the first word: a plan is made once per structure, and the words are few.
        var w = 0
        while let k = cache.pendingStamps.withUnsafeMutableBufferPointer({ Solver.takeLowestMark($0, from: &w) }) {
            let x = tableau.stampOrder[k]
            var r = 0.0
            for cell in tableau.slots[Int(x)].row.cells {
                r += cell.symbol == marker ? cell.coefficient : cell.coefficient * scratch.expansion[Int(cell.symbol)]
            }
            guard r != 0 else { continue }
            scratch.expansion[Int(x)] = r
            rates.append(Cell(x, r))
            markDependents(of: x, after: k)
        }
        for cell in rates { scratch.expansion[Int(cell.symbol)] = 0 }
        return ShiftPlan(marker: marker, rows: rows, rates: rates)
    }

    /// Moves the values of the plan's externals by their rates × `shift`, logging the ones that
    /// moved (as the sweep does).
    mutating func applyRates(of k: Int, shift: Double) {
        plans.list[k].rates.withUnsafeBufferPointer { rates in
            cache.values.withUnsafeMutableBufferPointer { values in
                for cell in rates {
                    let d = cell.coefficient * shift
                    if d != 0 {
                        values[Int(cell.symbol)] += d
                        cache.movedLog.append(cell.symbol)
                    }
                }
            }
        }
        trimMovedLog()
    }
}
