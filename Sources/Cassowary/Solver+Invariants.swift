// Internal consistency checks, used by the tests after every operation.

extension Solver {
    /// Describes every broken invariant of the tableau (empty when consistent): restricted rows are
    /// fully reduced (only non-basic symbols, no external), feasible, and dummy rows hold only
    /// dummies at 0; external rows reference only basic externals (no basic restricted symbol) and
    /// never in a cycle; the column index matches the rows; objectives hold only non-basic
    /// restricted symbols; only externals have values.
    func invariantViolations() -> [String] {
        var out: [String] = []
        var expected = [[Int32]](repeating: [], count: tableau.slots.count)
        for i in tableau.slots.indices where tableau.slots[i].isBasic {
            let row = tableau.slots[i].row
            let restricted = tableau.slots[i].kind.isRestricted
            if restricted && tableau.slots[i].kind != .dummy && row.constant < -Tolerance.invariantRow {
                out.append("restricted row \(i) is infeasible: \(row.constant)")
            }
            if tableau.slots[i].kind == .dummy {
                if abs(row.constant) > Tolerance.invariantRow { out.append("dummy row \(i) is not 0: \(row.constant)") }
                if row.symbols.contains(where: { tableau.slots[Int($0)].kind != .dummy }) {
                    out.append("dummy row \(i) holds a non-dummy symbol")
                }
            }
            for (k, cell) in row.cells.enumerated() {
                let s = cell.symbol
                let si = Int(s)
                if tableau.slots[si].isBasic && (restricted || tableau.slots[si].kind != .external) {
                    out.append("row \(i) holds basic symbol \(s)")
                }
                if restricted && tableau.slots[si].kind == .external { out.append("restricted row \(i) holds external \(s)") }
                if tableau.slots[si].isBasic && tableau.slots[si].stamp >= tableau.slots[i].stamp { out.append("row \(i) references a newer row \(s)") }
                if tableau.slots[si].isBasic && !restricted && tableau.slots[i].stamp == 0 { out.append("reduced row \(i) references \(s)") }
                if k > 0 && row.cells[k - 1].symbol >= s { out.append("row \(i) is not sorted") }
                let slot = Int(cell.slot)
                if slot < 0 || slot >= tableau.slots[si].column.count || tableau.slots[si].column[slot] != Int32(i) {
                    out.append("row \(i)'s cell \(s) has slot \(slot), not its place in the column")
                }
                expected[si].append(Int32(i))
            }
        }
        // A row not flagged `mayHoldParameters` holds no parameter and no flagged reference.
        for i in tableau.slots.indices where tableau.slots[i].isBasic && tableau.slots[i].kind == .external && !tableau.slots[i].mayHoldParameters {
            for cell in tableau.slots[i].row.cells where tableau.slots[Int(cell.symbol)].kind == .external {
                let s = Int(cell.symbol)
                if !tableau.slots[s].isBasic || tableau.slots[s].mayHoldParameters {
                    out.append("row \(i) holds \(s), which carries parameters, but is not flagged")
                }
            }
        }
        if tableau.status.count != tableau.slots.count {
            out.append("tableau.status holds \(tableau.status.count) symbols, tableau.slots \(tableau.slots.count)")
        } else {
            for s in tableau.slots.indices where tableau.status[s] != SymbolStatus(kind: tableau.slots[s].kind, isBasic: tableau.slots[s].isBasic) {
                out.append("tableau.status of \(s) disagrees with its slot")
            }
        }
        for s in tableau.slots.indices where tableau.slots[s].column.sorted() != expected[s] {
            out.append("column \(s) is \(tableau.slots[s].column), rows say \(expected[s])")
        }
        for (k, objective) in objectives.rows.enumerated() {
            for s in objective.symbols where tableau.slots[Int(s)].isBasic || tableau.slots[Int(s)].kind == .external {
                out.append("objective \(k) holds symbol \(s)")
            }
        }
        // Cached values match a direct evaluation once brought up to date.
        var fresh = self
        fresh.updateValues()
        // Only externals carry values (the sweep multiplies every other symbol's by 0).
        for i in tableau.slots.indices where tableau.slots[i].kind != .external && (cache.values[i] != 0 || fresh.cache.values[i] != 0) {
            out.append("symbol \(i) is not external but has value \(fresh.cache.values[i])")
        }
        for i in tableau.slots.indices where tableau.slots[i].kind == .external {
            let direct = evaluate(Int32(i))
            if abs(fresh.cache.values[i] - direct) > Tolerance.invariantValue * max(1, abs(direct)) {
                out.append("cached value of \(i) is \(fresh.cache.values[i]), rows say \(direct)")
            }
        }
        // References form no cycle.
        var state = [UInt8](repeating: 0, count: tableau.slots.count)
        for i in tableau.slots.indices where tableau.slots[i].isBasic && tableau.slots[i].kind == .external && state[i] == 0 {
            var stack: [(Int32, Bool)] = [(Int32(i), false)]
            while let (t, done) = stack.popLast() {
                let ti = Int(t)
                if done { state[ti] = 2; continue }
                if state[ti] == 2 { continue }
                if state[ti] == 1 { out.append("reference cycle through \(t)"); return out }
                state[ti] = 1
                stack.append((t, true))
                for s in tableau.slots[ti].row.symbols where tableau.slots[Int(s)].isBasic {
                    if state[Int(s)] == 1 { out.append("reference cycle through \(s)"); return out }
                    if state[Int(s)] == 0 { stack.append((s, false)) }
                }
            }
        }
        return out
    }
}
