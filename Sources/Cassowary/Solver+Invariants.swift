// Internal consistency checks, used by the tests after every operation.

extension Solver {
    /// Describes every broken invariant of the tableau (empty when consistent): restricted rows are
    /// fully reduced (only non-basic symbols, no external), feasible, and dummy rows hold only
    /// dummies at 0; external rows reference only basic externals (no basic restricted symbol) and
    /// never in a cycle; the column index matches the rows; objectives hold only non-basic
    /// restricted symbols; only externals have values.
    func invariantViolations() -> [String] {
        var out: [String] = []
        var expected = [[Int32]](repeating: [], count: slots.count)
        for i in slots.indices where slots[i].isBasic {
            let row = slots[i].row
            let restricted = slots[i].kind.isRestricted
            if restricted && slots[i].kind != .dummy && row.constant < -1e-7 {
                out.append("restricted row \(i) is infeasible: \(row.constant)")
            }
            if slots[i].kind == .dummy {
                if abs(row.constant) > 1e-7 { out.append("dummy row \(i) is not 0: \(row.constant)") }
                if row.symbols.contains(where: { slots[Int($0)].kind != .dummy }) {
                    out.append("dummy row \(i) holds a non-dummy symbol")
                }
            }
            for (k, cell) in row.cells.enumerated() {
                let s = cell.symbol
                let si = Int(s)
                if slots[si].isBasic && (restricted || slots[si].kind != .external) {
                    out.append("row \(i) holds basic symbol \(s)")
                }
                if restricted && slots[si].kind == .external { out.append("restricted row \(i) holds external \(s)") }
                if slots[si].isBasic && slots[si].stamp >= slots[i].stamp { out.append("row \(i) references a newer row \(s)") }
                if slots[si].isBasic && !restricted && slots[i].stamp == 0 { out.append("reduced row \(i) references \(s)") }
                if k > 0 && row.cells[k - 1].symbol >= s { out.append("row \(i) is not sorted") }
                let slot = Int(cell.slot)
                if slot < 0 || slot >= slots[si].column.count || slots[si].column[slot] != Int32(i) {
                    out.append("row \(i)'s cell \(s) has slot \(slot), not its place in the column")
                }
                expected[si].append(Int32(i))
            }
        }
        if status.count != slots.count {
            out.append("status holds \(status.count) symbols, slots \(slots.count)")
        } else {
            for s in slots.indices where status[s] != SymbolStatus(kind: slots[s].kind, isBasic: slots[s].isBasic) {
                out.append("status of \(s) disagrees with its slot")
            }
        }
        for s in slots.indices where slots[s].column.sorted() != expected[s] {
            out.append("column \(s) is \(slots[s].column), rows say \(expected[s])")
        }
        for (k, objective) in objectives.enumerated() {
            for s in objective.symbols where slots[Int(s)].isBasic || slots[Int(s)].kind == .external {
                out.append("objective \(k) holds symbol \(s)")
            }
        }
        // Cached values match a direct evaluation once brought up to date.
        var fresh = self
        fresh.updateValues()
        // Only externals carry values (the sweep multiplies every other symbol's by 0).
        for i in slots.indices where slots[i].kind != .external && (values[i] != 0 || fresh.values[i] != 0) {
            out.append("symbol \(i) is not external but has value \(fresh.values[i])")
        }
        for i in slots.indices where slots[i].kind == .external {
            let direct = evaluate(Int32(i))
            if abs(fresh.values[i] - direct) > 1e-6 * max(1, abs(direct)) {
                out.append("cached value of \(i) is \(fresh.values[i]), rows say \(direct)")
            }
        }
        // References form no cycle.
        var state = [UInt8](repeating: 0, count: slots.count)
        for i in slots.indices where slots[i].isBasic && slots[i].kind == .external && state[i] == 0 {
            var stack: [(Int32, Bool)] = [(Int32(i), false)]
            while let (t, done) = stack.popLast() {
                let ti = Int(t)
                if done { state[ti] = 2; continue }
                if state[ti] == 2 { continue }
                if state[ti] == 1 { out.append("reference cycle through \(t)"); return out }
                state[ti] = 1
                stack.append((t, true))
                for s in slots[ti].row.symbols where slots[Int(s)].isBasic {
                    if state[Int(s)] == 1 { out.append("reference cycle through \(s)"); return out }
                    if state[Int(s)] == 0 { stack.append((s, false)) }
                }
            }
        }
        return out
    }
}
